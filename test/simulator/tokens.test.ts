import { readFileSync } from 'node:fs';
import { createCertificateAuthority, issueCertificate } from '../../simulator/certificates';
import { httpCall } from '../../simulator/https-client';
import { BankSimulator } from '../../simulator/simulator';
import {
  bankCall,
  collectionHeaders,
  collectionTokenCall,
  FORM,
  paymentsHeaders,
  paymentsTokenCall,
} from '../support/bank-session';

let simulator: BankSimulator;
// The simulator is given its CA here (rather than generating one), so the test can issue a
// client certificate from the bank's own CA to another client.
const bankCa = createCertificateAuthority('test bank CA');

beforeAll(async () => {
  simulator = await BankSimulator.start({ ca: bankCa });
});

afterAll(async () => {
  await simulator.stop();
});

describe('collection password grant (POST /auth/openapi/token)', () => {
  it('issues a bearer token for 300 s with a refresh token', async () => {
    const answer = await collectionTokenCall(simulator);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(
      expect.objectContaining({
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 300,
        refresh_expires_in: 1800,
        scope: 'cobranca',
      }),
    );
  });

  it('renews with grant_type=refresh_token, and a refresh token works once', async () => {
    const first = await collectionTokenCall(simulator);
    const refresh = () =>
      bankCall(simulator, '/auth/openapi/token', {
        method: 'POST',
        headers: { ...FORM, 'x-api-key': simulator.credentials.collection.apiKey, context: 'COBRANCA' },
        body: `grant_type=refresh_token&refresh_token=${first.json.refresh_token}`,
      });
    const renewed = await refresh();
    expect(renewed.status).toBe(200);
    expect(renewed.json.access_token).not.toBe(first.json.access_token);
    const again = await refresh();
    expect(again.status).toBe(400);
    expect(again.json).toEqual({ error: 'invalid_grant', error_description: 'Token is not active' });
  });

  it.each([
    ['a wrong x-api-key', {}, { 'x-api-key': 'not-the-key' }, 401, 'unauthorized_client'],
    [
      'a wrong context header (the manual: "Invalid user credentials")',
      {},
      { context: 'PAGAMENTOS' },
      401,
      'invalid_grant',
    ],
    ['no context header', {}, { context: '' }, 401, 'invalid_grant'],
    [
      'no grant_type (the manual: "Missing form parameter: grant_type")',
      { grant_type: '' },
      {},
      400,
      'invalid_request',
    ],
    ['a wrong access code', { password: 'wrong' }, {}, 401, 'invalid_grant'],
    ['a wrong username', { username: '999990101' }, {}, 401, 'invalid_grant'],
    ['an unknown scope', { scope: 'cobranca pix.admin' }, {}, 400, 'invalid_scope'],
    ['an unsupported grant', { grant_type: 'client_credentials' }, {}, 400, 'unsupported_grant_type'],
  ])('refuses %s with the OAuth error shape', async (_case, form, headers, status, error) => {
    const answer = await collectionTokenCall(simulator, form, headers);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ error, error_description: expect.any(String) });
    expect(answer.json.access_token).toBeUndefined();
  });

  it('refuses a JSON body: the token request is form-encoded', async () => {
    const answer = await bankCall(simulator, '/auth/openapi/token', {
      method: 'POST',
      headers: { 'x-api-key': simulator.credentials.collection.apiKey, context: 'COBRANCA' },
      body: { grant_type: 'password' },
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error_description).toMatch(/form-encoded/);
  });
});

describe('payments client_credentials over mutual TLS (POST /thirdparty/auth/token)', () => {
  it('issues a token with every payment scope (pagar and consultar of each kind) by default', async () => {
    const answer = await paymentsTokenCall(simulator);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      access_token: expect.any(String),
      expires_in: 300,
      token_type: 'Bearer',
      scope:
        'payments.pix.pagar payments.boleto.pagar payments.tributos.pagar payments.pix.consultar payments.boleto.consultar payments.tributos.consultar',
    });
  });

  it('accepts the client id and secret as HTTP Basic and a narrower scope', async () => {
    const { clientId, clientSecret } = simulator.credentials.payments;
    const answer = await bankCall(simulator, '/thirdparty/auth/token', {
      method: 'POST',
      headers: { ...FORM, authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
      body: 'grant_type=client_credentials&scope=payments.pix.pagar',
      clientCertificate: true,
    });
    expect(answer.status).toBe(200);
    expect(answer.json.scope).toBe('payments.pix.pagar');
  });

  it('refuses a caller without a client certificate', async () => {
    const answer = await paymentsTokenCall(simulator, {}, { clientCertificate: false });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({
      error: 'invalid_client',
      error_description: expect.stringMatching(/client certificate is required/),
    });
  });

  it('refuses a client certificate from another CA, and one issued to another client', async () => {
    const otherCa = createCertificateAuthority('someone else');
    const foreign = issueCertificate(otherCa, { commonName: simulator.credentials.payments.clientId, client: true });
    const call = (pair: { certPem: string; keyPem: string }) =>
      httpCall(`${simulator.baseUrl}/thirdparty/auth/token`, {
        method: 'POST',
        headers: FORM,
        trustedCas: [simulator.caPem],
        clientCertPem: pair.certPem,
        clientKeyPem: pair.keyPem,
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: simulator.credentials.payments.clientId,
          client_secret: simulator.credentials.payments.clientSecret,
        }).toString(),
      });
    const fromOtherCa = await call(foreign);
    expect(fromOtherCa.status).toBe(401);
    expect(JSON.parse(fromOtherCa.body).error_description).toMatch(/not issued by the bank/);

    const otherClient = await call(issueCertificate(bankCa, { commonName: 'another-client', client: true }));
    expect(otherClient.status).toBe(401);
    expect(JSON.parse(otherClient.body).error_description).toMatch(/does not belong to this client/);
  });

  it('serves the CA it was given, and writes it to the CA file', () => {
    expect(simulator.caPem).toBe(bankCa.certPem);
    expect(readFileSync(simulator.caFile, 'utf8')).toBe(bankCa.certPem);
  });

  it.each([
    ['a wrong secret', { client_secret: 'nope' }, 401, 'invalid_client'],
    ['an unknown client', { client_id: 'intruder' }, 401, 'invalid_client'],
    ['an unknown scope', { scope: 'payments.pix.pagar payments.admin' }, 400, 'invalid_scope'],
    ['another grant type', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
  ])('refuses %s', async (_case, form, status, error) => {
    const answer = await paymentsTokenCall(simulator, form);
    expect(answer.status).toBe(status);
    expect(answer.json.error).toBe(error);
  });
});

describe('bearer tokens on API calls', () => {
  const registration = '/pagamentos/v1/associado/webhook';

  it("refuses a call without a token, with a made-up token, and with the other API's token", async () => {
    const headers = await paymentsHeaders(simulator);
    const none = await bankCall(simulator, registration, { headers: { ...headers, authorization: '' } });
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ message: 'UNAUTHORIZED' });
    const madeUp = await bankCall(simulator, registration, {
      headers: { ...headers, authorization: 'Bearer made-up' },
    });
    expect(madeUp.status).toBe(401);
    const collection = await collectionHeaders(simulator);
    const wrongApi = await bankCall(simulator, registration, {
      headers: { ...headers, authorization: collection.authorization },
    });
    expect(wrongApi.status).toBe(403);
    expect(wrongApi.json.message).toMatch(/payments\.pix\.pagar, payments\.boleto\.pagar, payments\.tributos\.pagar/);
  });

  it('refuses an expired token once the bank clock passes expires_in, and the refresh grant still works', async () => {
    const headers = await paymentsHeaders(simulator);
    expect((await bankCall(simulator, registration, { headers })).status).toBe(200);
    const collection = await collectionTokenCall(simulator);
    await simulator.control.advanceClock(301);
    const expired = await bankCall(simulator, registration, { headers });
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({ message: 'UNAUTHORIZED' });
    const renewed = await bankCall(simulator, '/auth/openapi/token', {
      method: 'POST',
      headers: { ...FORM, 'x-api-key': simulator.credentials.collection.apiKey, context: 'COBRANCA' },
      body: `grant_type=refresh_token&refresh_token=${collection.json.refresh_token}`,
    });
    expect(renewed.status).toBe(200);
  });
});
