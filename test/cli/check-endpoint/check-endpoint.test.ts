import { checkEndpoint, formatCheckTable, type CheckRow } from '../../../cli/check-endpoint/check-endpoint';
import {
  makeReceiverPki,
  startTarget,
  type ReceiverPki,
  type ReceivedRequest,
  type Target,
} from '../../support/tls-targets';

const TOKEN = 'the-shared-token';
let pki: ReceiverPki;
const targets: Target[] = [];

/** Answers 200 only with the token, like a real receiver. */
const tokenChecked = (request: ReceivedRequest) => ({ status: request.headers.authorization === TOKEN ? 200 : 401 });

async function target(options: Parameters<typeof startTarget>[0]): Promise<Target> {
  const started = await startTarget(options);
  targets.push(started);
  return started;
}

const verdicts = (rows: CheckRow[]) => Object.fromEntries(rows.map((row) => [row.check, row.status]));
const detail = (rows: CheckRow[], check: string) => rows.find((row) => row.check === check)?.detail ?? '';

beforeAll(() => {
  pki = makeReceiverPki();
});

afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});

describe('check-endpoint', () => {
  it('passes a good endpoint whose CA is given, and reports the TLS protocols', async () => {
    const good = await target({ pair: pki.leaf, answer: tokenChecked });
    const rows = await checkEndpoint({ url: `${good.url}/payments`, token: TOKEN, caPems: [pki.ca.certPem] });
    expect(verdicts(rows)).toEqual({
      HTTPS: 'pass',
      'TLS 1.2': 'pass',
      Certificate: 'pass',
      'Notification answered 200': 'pass',
      'Refused without token': 'pass',
    });
    expect(detail(rows, 'TLS 1.2')).toBe(
      'TLS 1.2 negotiable; TLSv1.3 negotiated by default (TLSv1.2 when limited to 1.2)',
    );
    expect(detail(rows, 'Certificate')).toMatch(
      /^CN=localhost, issued by test receiver CA, valid until \d{4}-\d{2}-\d{2}$/,
    );
    expect(detail(rows, 'Refused without token')).toBe('HTTP 401 without Authorization');
    // It sent a realistic Pix notification, with the token, then without it.
    const [withToken, without] = good.requests;
    expect(withToken.headers.authorization).toBe(TOKEN);
    expect(JSON.parse(withToken.body)).toEqual(
      expect.objectContaining({
        idTransacao: expect.stringMatching(/^check-endpoint-/),
        status: 'EFETIVADO',
        valorPagamento: '1.00',
      }),
    );
    expect(without.headers.authorization).toBeUndefined();
  });

  it('sends a boleto event to a /boleto URL, in the header it is told', async () => {
    const good = await target({
      pair: pki.leaf,
      answer: (r) => ({ status: r.headers['x-webhook-token'] === TOKEN ? 200 : 403 }),
    });
    const rows = await checkEndpoint({
      url: `${good.url}/prod/boleto`,
      token: TOKEN,
      header: 'x-webhook-token',
      caPems: [pki.ca.certPem],
    });
    expect(rows.every((row) => row.status === 'pass')).toBe(true);
    expect(JSON.parse(good.requests[0].body)).toEqual(
      expect.objectContaining({
        movimento: 'LIQUIDACAO_PIX',
        idEventoWebhook: expect.stringMatching(/^check-endpoint-/),
      }),
    );
  });

  it('fails a self-signed endpoint, saying so', async () => {
    const selfSigned = await target({ pair: pki.selfSigned, answer: tokenChecked });
    const rows = await checkEndpoint({ url: selfSigned.url, token: TOKEN, caPems: [pki.selfSigned.certPem] });
    expect(verdicts(rows).Certificate).toBe('fail');
    expect(detail(rows, 'Certificate')).toMatch(
      /^self-signed certificate \(CN=localhost\): the bank refuses self-signed certificates/,
    );
    expect(detail(rows, 'Notification answered 200')).toMatch(/sent past the certificate problem above/);
  });

  it('fails a plain-HTTP endpoint and skips the rest', async () => {
    const plain = await target({ answer: tokenChecked });
    const rows = await checkEndpoint({ url: plain.url, token: TOKEN });
    expect(verdicts(rows)).toEqual({
      HTTPS: 'fail',
      'TLS 1.2': 'skip',
      Certificate: 'skip',
      'Notification answered 200': 'skip',
      'Refused without token': 'skip',
    });
    expect(detail(rows, 'HTTPS')).toBe('HTTP: the bank only delivers over HTTPS');
    expect(plain.requests).toHaveLength(0);
  });

  it('fails a good endpoint when its CA is not given: the chain is not trusted', async () => {
    const good = await target({ pair: pki.leaf, answer: tokenChecked });
    const rows = await checkEndpoint({ url: good.url, token: TOKEN });
    expect(verdicts(rows).Certificate).toBe('fail');
    expect(detail(rows, 'Certificate')).toMatch(/not trusted.*pass it with --ca FILE/);
  });

  it('fails an endpoint answering 500', async () => {
    const broken = await target({ pair: pki.leaf, answer: () => ({ status: 500 }) });
    const rows = await checkEndpoint({ url: broken.url, token: TOKEN, caPems: [pki.ca.certPem] });
    expect(verdicts(rows)['Notification answered 200']).toBe('fail');
    expect(detail(rows, 'Notification answered 200')).toBe(
      'a payment notification with Authorization: answered HTTP 500; only 200 counts as delivered; the bank marks it "NÃO ENTREGUE"',
    );
    expect(detail(rows, 'Refused without token')).toMatch(/expected 401 or 403/);
  });

  it('fails an endpoint slower than the deadline', async () => {
    const slow = await target({ pair: pki.leaf, answer: () => ({ delayMs: 2_000 }) });
    const rows = await checkEndpoint({ url: slow.url, token: TOKEN, caPems: [pki.ca.certPem], timeoutMs: 500 });
    expect(verdicts(rows)['Notification answered 200']).toBe('fail');
    expect(detail(rows, 'Notification answered 200')).toMatch(/no HTTP 200 within the 500 ms deadline/);
  });

  it('fails an endpoint that only speaks TLS 1.1', async () => {
    const old = await target({ pair: pki.leaf, tls11Only: true });
    const rows = await checkEndpoint({ url: old.url, token: TOKEN, caPems: [pki.ca.certPem] });
    expect(verdicts(rows)['TLS 1.2']).toBe('fail');
    expect(detail(rows, 'TLS 1.2')).toMatch(/TLS 1\.2 or later is required/);
  });

  it('warns (does not fail) when the endpoint accepts a notification without the token', async () => {
    const open = await target({ pair: pki.leaf });
    const rows = await checkEndpoint({ url: open.url, token: TOKEN, caPems: [pki.ca.certPem] });
    expect(verdicts(rows)['Refused without token']).toBe('warn');
    expect(rows.some((row) => row.status === 'fail')).toBe(false);
    expect(detail(rows, 'Refused without token')).toMatch(/anyone who knows the URL can post/);
  });

  it('warns that it could not check the token without --token', async () => {
    const open = await target({ pair: pki.leaf });
    const rows = await checkEndpoint({ url: open.url, caPems: [pki.ca.certPem] });
    expect(verdicts(rows)).toEqual(
      expect.objectContaining({ 'Notification answered 200': 'pass', 'Refused without token': 'warn' }),
    );
    expect(open.requests).toHaveLength(1);
  });

  it('fails an endpoint nobody listens on', async () => {
    const gone = await target({ pair: pki.leaf });
    await gone.close();
    const rows = await checkEndpoint({ url: gone.url, token: TOKEN, caPems: [pki.ca.certPem] });
    expect(verdicts(rows)['TLS 1.2']).toBe('fail');
    expect(detail(rows, 'TLS 1.2')).toMatch(/connection refused/);
    expect(verdicts(rows).Certificate).toBe('skip');
  });

  it('formats an aligned table with a summary line', () => {
    const table = formatCheckTable([
      { check: 'HTTPS', status: 'pass', detail: 'https://x' },
      { check: 'Certificate', status: 'fail', detail: 'self-signed' },
    ]);
    expect(table.split('\n')).toEqual([
      'CHECK        RESULT  DETAIL',
      'HTTPS        PASS    https://x',
      'Certificate  FAIL    self-signed',
      '',
      '1 passed, 1 failed, 0 warnings, 0 skipped',
    ]);
  });
});
