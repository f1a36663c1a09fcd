import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import {
  certificateSerial,
  createCertificateAuthority,
  createSelfSignedCertificate,
  issueCertificate,
} from '../../simulator/certificates';
import { isSelfSigned } from '../../simulator/https-client';

/** Builds a certificate with the given serial the way certificates.ts does, and lets OpenSSL parse it. */
function parsesWithSerial(serialHex: string): boolean {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = serialHex;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: 'serial test' }]);
  cert.setIssuer([{ name: 'commonName', value: 'serial test' }]);
  cert.sign(
    forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    forge.md.sha256.create(),
  );
  try {
    new X509Certificate(forge.pki.certificateToPem(cert));
    return true;
  } catch {
    return false;
  }
}

describe('certificates', () => {
  it.each([
    ['a leading zero byte', [0x00, 0x55, 0x47]],
    ['two leading zero bytes', [0x00, 0x00, 0x55]],
    ['a high first byte', [0x80, 0x01, 0x02]],
    ['all ones', [0xff, 0xff, 0xff]],
  ])('makes a serial OpenSSL accepts from random bytes with %s', (_case, start) => {
    const random = Buffer.concat([Buffer.from(start), Buffer.alloc(13, 0xab)]);
    const serial = certificateSerial(random);
    expect(serial).toHaveLength(32);
    expect(parseInt(serial.slice(0, 2), 16)).toBeGreaterThanOrEqual(0x01);
    expect(parseInt(serial.slice(0, 2), 16)).toBeLessThanOrEqual(0x7f);
    expect(parsesWithSerial(serial)).toBe(true);
  });

  it('knows what it guards against: a serial left zero-padded is refused by OpenSSL', () => {
    // forge drops one leading zero byte; two leave 00 55..., which OpenSSL calls illegal padding.
    expect(parsesWithSerial('0000' + '55'.repeat(14))).toBe(false);
  });

  it('issues server and client certificates that chain to the CA and are not self-signed', () => {
    const ca = createCertificateAuthority('unit CA');
    const caX509 = new X509Certificate(ca.certPem);
    expect(caX509.ca).toBe(true);
    const server = new X509Certificate(
      issueCertificate(ca, { commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] }).certPem,
    );
    const client = new X509Certificate(issueCertificate(ca, { commonName: 'client-1', client: true }).certPem);
    for (const leaf of [server, client]) {
      expect(leaf.checkIssued(caX509)).toBe(true);
      expect(leaf.verify(caX509.publicKey)).toBe(true);
      expect(leaf.ca).toBe(false);
      expect(isSelfSigned(leaf)).toBe(false);
    }
    expect(server.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(client.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(isSelfSigned(caX509)).toBe(true);
    expect(isSelfSigned(new X509Certificate(createSelfSignedCertificate().certPem))).toBe(true);
  });

  it('says what to give when the CA key is not usable', () => {
    const ca = createCertificateAuthority('unit CA');
    expect(() => issueCertificate({ certPem: ca.certPem, keyPem: 'not a key' }, { commonName: 'x' })).toThrow(
      /Give a PEM certificate and its PEM RSA key/,
    );
  });
});
