import {
  constants,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  privateEncrypt,
  randomBytes,
} from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

/** A certificate and its private key, both PEM. */
export interface PemPair {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface IssueOptions {
  /** Subject common name. */
  readonly commonName: string;
  /** DNS names and IP addresses for the subjectAltName (server certificates). @default none */
  readonly hosts?: readonly string[];
  /** Issue a client certificate (extendedKeyUsage clientAuth) instead of a server one. @default false */
  readonly client?: boolean;
  /** Validity in days from now. @default 30 */
  readonly validDays?: number;
  /** Make the certificate already expired (for tests of expired chains). @default false */
  readonly expired?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A certificate serial (hex) from random bytes, always a minimal positive DER INTEGER: a first
 * byte of 0x01-0x7f. forge writes the hex almost as given (it drops one leading zero byte), and a
 * 0x00 left before a byte under 0x80 is "illegal padding" to OpenSSL, which then silently leaves
 * the certificate out of a trust store. A '0'-prefixed random serial did that for about one
 * certificate in 512, and a test run's CA then could not be verified.
 */
export function certificateSerial(random: Buffer): string {
  const bytes = Buffer.from(random);
  bytes[0] = bytes[0] & 0x7f || 0x01;
  return bytes.toString('hex');
}

/** The DER prefix of a SHA-256 DigestInfo (RFC 8017, section 9.2, note 1): the hash follows it. */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * A signer forge's `cert.sign` takes in place of its own RSA key: PKCS #1 v1.5 by Node's native
 * crypto. forge's JavaScript RSA picks its slowest big-number routine wherever a global
 * `navigator` exists, as it does from Node 21 on: one certificate then took about 1.5 s of CPU,
 * and every simulator a test starts signs three.
 */
function nativeSigner(key: KeyObject): forge.pki.rsa.PrivateKey {
  const sign = (md: forge.md.MessageDigest): string => {
    if (md.algorithm !== 'sha256') throw new Error(`Only SHA-256 certificates are issued here, not ${md.algorithm}.`);
    const digestInfo = Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), 'binary')]);
    return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, digestInfo).toString('binary');
  };
  return { sign } as unknown as forge.pki.rsa.PrivateKey;
}

/** RSA 2048 keys come from Node's native generator (forge's own JavaScript one is slow). */
function newKeyPair(): { signer: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; keyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    signer: nativeSigner(privateKey),
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
}

function newCertificate(publicKey: forge.pki.PublicKey, validDays: number, expired: boolean): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = certificateSerial(randomBytes(16));
  const now = Date.now();
  cert.validity.notBefore = new Date(expired ? now - (validDays + 2) * DAY_MS : now - 60_000);
  cert.validity.notAfter = new Date(expired ? now - DAY_MS : now + validDays * DAY_MS);
  return cert;
}

function altNames(hosts: readonly string[]): object[] {
  return hosts.map((host) => (isIP(host) ? { type: 7, ip: host } : { type: 2, value: host }));
}

function leafExtensions(options: IssueOptions): object[] {
  return [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    options.client ? { name: 'extKeyUsage', clientAuth: true } : { name: 'extKeyUsage', serverAuth: true },
    ...(options.hosts?.length ? [{ name: 'subjectAltName', altNames: altNames(options.hosts) }] : []),
    { name: 'subjectKeyIdentifier' },
  ];
}

/** Creates a certificate authority able to issue server and client certificates. */
export function createCertificateAuthority(commonName = 'cdk-bank-webhooks local CA', validDays = 30): PemPair {
  const keys = newKeyPair();
  const cert = newCertificate(keys.publicKey, validDays, false);
  const subject = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'cdk-bank-webhooks (local testing only)' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.signer, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/** Issues a server or client certificate signed by `ca`. */
export function issueCertificate(ca: PemPair, options: IssueOptions): PemPair {
  let caCert: forge.pki.Certificate;
  let caKey: KeyObject;
  try {
    caCert = forge.pki.certificateFromPem(ca.certPem);
    caKey = createPrivateKey(ca.keyPem);
    if (caKey.asymmetricKeyType !== 'rsa')
      throw new Error(`the key is ${caKey.asymmetricKeyType ?? 'not an asymmetric key'}, not RSA`);
  } catch (error) {
    throw new Error(
      `The CA certificate or key is not a PEM RSA pair forge can read: ${(error as Error).message}. Give a PEM certificate and its PEM RSA key.`,
      { cause: error },
    );
  }
  const keys = newKeyPair();
  const cert = newCertificate(keys.publicKey, options.validDays ?? 30, options.expired ?? false);
  cert.setSubject([{ name: 'commonName', value: options.commonName }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    ...leafExtensions(options),
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(nativeSigner(caKey), forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/** A self-signed server certificate (what the bank refuses), for tests and checks. */
export function createSelfSignedCertificate(hosts: readonly string[] = ['localhost', '127.0.0.1']): PemPair {
  const keys = newKeyPair();
  const cert = newCertificate(keys.publicKey, 30, false);
  const subject = [{ name: 'commonName', value: hosts[0] ?? 'localhost' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions(leafExtensions({ commonName: hosts[0] ?? 'localhost', hosts }));
  cert.sign(keys.signer, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}
