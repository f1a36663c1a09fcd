import { HttpsTransport, NetworkError } from '../../../lambda/bank/http';
import { createCertificateAuthority } from '../../../simulator/certificates';
import { makeReceiverPki, startTarget, type Target } from '../../support/tls-targets';

const pki = makeReceiverPki();
const targets: Target[] = [];
const transports: HttpsTransport[] = [];

async function target(options: Parameters<typeof startTarget>[0]): Promise<string> {
  const started = await startTarget(options);
  targets.push(started);
  return `${started.url}/query`;
}

function transport(caPem?: string): HttpsTransport {
  const made = new HttpsTransport({ caCertificates: caPem });
  transports.push(made);
  return made;
}

afterAll(async () => {
  for (const made of transports) made.close();
  await Promise.all(targets.map((t) => t.close()));
});

const get = (t: HttpsTransport, url: string) => t.send({ url, method: 'GET', headers: {}, timeoutMs: 3_000 });

it('reaches a bank whose certificate chains to the configured CA', async () => {
  const url = await target({ pair: pki.leaf, answer: () => ({ body: '{"ok":true}' }) });
  const t = transport(pki.ca.certPem);

  const answers = [await get(t, url), await get(t, url)];

  expect(answers.map((a) => [a.status, a.body])).toEqual([
    [200, '{"ok":true}'],
    [200, '{"ok":true}'],
  ]);
  expect(targets[0].requests).toHaveLength(2);
});

it('refuses a bank whose certificate chains to a CA nobody configured, and sends it nothing', async () => {
  const served = await startTarget({ pair: pki.leaf });
  targets.push(served);
  const other = createCertificateAuthority('some other CA');

  const failure = await get(transport(other.certPem), `${served.url}/query`).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(NetworkError);
  expect((failure as NetworkError).code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/);
  expect(served.requests).toHaveLength(0);
});

it('refuses a self-signed bank certificate that no configured CA issued', async () => {
  const served = await startTarget({ pair: pki.selfSigned });
  targets.push(served);

  const failure = await get(transport(pki.ca.certPem), `${served.url}/query`).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(NetworkError);
  expect((failure as NetworkError).code).toMatch(/SELF_SIGNED/);
  expect(served.requests).toHaveLength(0);
});

it('refuses a bank that offers only TLS 1.1 or older', async () => {
  const served = await startTarget({ pair: pki.leaf, tls11Only: true });
  targets.push(served);

  const failure = await get(transport(pki.ca.certPem), `${served.url}/query`).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(NetworkError);
  expect(served.requests).toHaveLength(0);
});
