/**
 * The deployed simulator's function (BankSandbox), over its deployed bundle in two local
 * execution environments that share no memory (requests alternate between them): the simulator's
 * own scenarios (tokens, registration, contracts, queries, notifications, faults), its
 * credentials custom resource, and what only a deployed one does (state in DynamoDB under
 * concurrent requests, control by Lambda Invoke only, no mutual TLS).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../../../simulator/certificates';
import { SimulatorControlError } from '../../../simulator/control-client';
import {
  bankCall,
  collectionHeaders,
  collectionTokenCall,
  contractBody,
  paymentsHeaders,
  paymentsTokenCall,
} from '../../support/bank-session';
import { tokenFingerprint } from '../../../lambda/sandbox/host';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SANDBOX_STATE_KEY } from '../../../contracts/sandbox';
import { type HostedSimulator, startHostedSimulator } from '../../support/sandbox-harness';

jest.setTimeout(60_000);

let hosted: HostedSimulator;

/** A receiver on loopback (certificate from the harness's CA) that, while it answers, asks the bank for the boleto it was told of. */
interface Receiver {
  readonly url: string;
  readonly received: Array<{ headers: Record<string, unknown>; body: unknown; situacaoDuringDelivery?: string }>;
  stop(): Promise<void>;
}

async function startReceiver(status = 200): Promise<Receiver> {
  const certificate = issueCertificate(hosted.ca, { commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
  const received: Receiver['received'] = [];
  const server: Server = createServer({ key: certificate.keyPem, cert: certificate.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on(
      'end',
      () =>
        void (async () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          const entry: Receiver['received'][number] = { headers: req.headers, body };
          const nossoNumero = typeof body.nossoNumero === 'string' ? body.nossoNumero : undefined;
          if (nossoNumero) {
            const answer = await bankCall(
              hosted,
              `/cobranca/boleto/v1/boletos?codigoBeneficiario=${hosted.accounts[0].beneficiario}&nossoNumero=${nossoNumero}`,
              { headers: await collectionHeaders(hosted) },
            );
            entry.situacaoDuringDelivery = answer.json?.situacao as string | undefined;
          }
          received.push(entry);
          res.writeHead(status).end();
        })(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/boleto`,
    received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  hosted = await startHostedSimulator();
});

afterEach(async () => {
  await hosted.control.clearFaults();
});

afterAll(async () => {
  await hosted?.stop();
});

describe('its credentials custom resource', () => {
  it("filled both secrets with a full set at create (the bank's, and the Pix application's with no certificate), and answered CloudFormation with their ARNs only", async () => {
    const stored = JSON.parse(hosted.secrets.currentValue(hosted.secretArn)!) as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual(['apiKey', 'clientId', 'clientSecret', 'password', 'username']);
    expect(stored.username).toBe(hosted.accounts[0].beneficiario + hosted.accounts[0].cooperativa);
    const pix = JSON.parse(hosted.secrets.currentValue(hosted.pixSecretArn)!) as Record<string, string>;
    expect(Object.keys(pix).sort()).toEqual(['clientId', 'clientSecret']);
    const again = await hosted.credentialsResource('Update');
    expect(again.answer).toEqual(
      expect.objectContaining({
        Status: 'SUCCESS',
        Data: { SecretArn: hosted.secretArn, PixSecretArn: hosted.pixSecretArn },
      }),
    );
    for (const value of [...Object.values(stored), ...Object.values(pix)])
      if (value.length > 8) expect(again.raw).not.toContain(value);
    // An update (or a retried create) keeps what the receiver may already have read.
    expect(JSON.parse(hosted.secrets.currentValue(hosted.secretArn)!)).toEqual(stored);
    expect(JSON.parse(hosted.secrets.currentValue(hosted.pixSecretArn)!)).toEqual(pix);
    expect((await hosted.credentialsResource('Delete')).answer.Status).toBe('SUCCESS');
  });

  it('fills the Pix secret at the Update an upgrade makes of a sandbox deployed before it had a Pix application, keeping the bank credentials', async () => {
    const bank = hosted.secrets.currentValue(hosted.secretArn);
    const pixBefore = hosted.secrets.currentValue(hosted.pixSecretArn);
    // What the new secret holds when CloudFormation has just made it: a generated string, not credentials.
    hosted.secrets.putValue(hosted.pixSecretArn, 'q1W!generated-by-secrets-manager', ['AWSCURRENT']);
    expect((await hosted.credentialsResource('Update')).answer.Status).toBe('SUCCESS');
    const filled = JSON.parse(hosted.secrets.currentValue(hosted.pixSecretArn)!) as Record<string, string>;
    expect(Object.keys(filled).sort()).toEqual(['clientId', 'clientSecret']);
    expect(hosted.secrets.currentValue(hosted.secretArn)).toBe(bank);
    // Put back what the other tests' Pix client holds.
    hosted.secrets.putValue(hosted.pixSecretArn, pixBefore!, ['AWSCURRENT']);
  });
});

describe("the bank's API through the function URL", () => {
  it("issues a collection token in one environment that the other accepts, and answers the manual's 401 to a wrong password", async () => {
    const token = await collectionTokenCall(hosted);
    expect(token.status).toBe(200);
    const boleto = await hosted.control.createBoleto({ valor: '120.50' });
    const headers = await collectionHeaders(hosted);
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() =>
        bankCall(
          hosted,
          `/cobranca/boleto/v1/boletos?codigoBeneficiario=${hosted.accounts[0].beneficiario}&nossoNumero=${boleto.nossoNumero}`,
          { headers },
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(hosted.instances.every((instance) => instance.invocations > 0)).toBe(true);
    const refused = await collectionTokenCall(hosted, { password: 'wrong' });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual(
      expect.objectContaining({ error: 'invalid_grant', error_description: 'Invalid user credentials' }),
    );
    const missing = await bankCall(
      hosted,
      `/cobranca/boleto/v1/boletos?codigoBeneficiario=${hosted.accounts[0].beneficiario}&nossoNumero=000999999`,
      { headers },
    );
    expect(missing.status).toBe(404);
  });

  it('grants the payments token on the client id and secret alone (a function URL sees no client certificate), and refuses a wrong secret', async () => {
    expect((await paymentsTokenCall(hosted, {}, { clientCertificate: false })).status).toBe(200);
    const refused = await paymentsTokenCall(hosted, { client_secret: 'wrong' }, { clientCertificate: false });
    expect(refused.status).toBe(401);
    expect(refused.json.error).toBe('invalid_client');
  });

  it('keeps the payment callback registration and the boleto contract across environments', async () => {
    const payments = await paymentsHeaders(hosted);
    const patched = await bankCall(hosted, '/pagamentos/v1/associado/webhook', {
      method: 'PATCH',
      headers: payments,
      body: { urlCallback: 'https://staging.example.com/payments', authorizationCallback: 'cb-token' },
    });
    expect(patched.status).toBe(204);
    const read = await bankCall(hosted, '/pagamentos/v1/associado/webhook', { headers: payments });
    expect(read.json).toEqual({
      urlCallback: 'https://staging.example.com/payments',
      authorizationCallback: 'cb-token',
    });
    const collection = await collectionHeaders(hosted);
    const created = await bankCall(hosted, '/cobranca/boleto/v1/webhook/contrato', {
      method: 'POST',
      headers: collection,
      body: contractBody(hosted),
    });
    expect(created.status).toBe(201);
    const duplicate = await bankCall(hosted, '/cobranca/boleto/v1/webhook/contrato', {
      method: 'POST',
      headers: collection,
      body: contractBody(hosted),
    });
    expect(duplicate.status).toBe(422);
    const a = hosted.accounts[0];
    const listed = await bankCall(
      hosted,
      `/cobranca/boleto/v1/webhook/contratos?cooperativa=${a.cooperativa}&posto=${a.posto}&beneficiario=${a.beneficiario}`,
      { headers: collection },
    );
    expect(listed.json).toEqual(
      expect.objectContaining({ idContrato: created.json.idContrato, url: 'https://receiver.example.com/boleto' }),
    );
    expect((await hosted.control.contracts()).map((c) => c.idContrato)).toContain(created.json.idContrato);
  });

  it("shows receivers' tokens in control answers as fingerprints only (they may end in logs and CloudFormation responses)", async () => {
    const registrations = await hosted.control.registrations();
    expect(registrations[0].authorizationCallback).toBe(tokenFingerprint('cb-token'));
    const contract = (await hosted.control.contracts())[0];
    expect(contract.token).toBe(tokenFingerprint('contract-token-value'));
    expect(JSON.stringify(await hosted.control.contracts())).not.toContain('contract-token-value');
  });

  it('serves the standard Pix API to its Pix application alone, on the client id and secret (no client certificate), and no Pix route without a token', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const basicOf = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    // The payments client is not the Pix application.
    const wrong = await bankCall(hosted, '/oauth/token', {
      method: 'POST',
      headers: {
        ...form,
        authorization: basicOf(hosted.credentials.payments.clientId, hosted.credentials.payments.clientSecret),
      },
      body: 'grant_type=client_credentials&scope=pix.read',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ error: 'invalid_client' });
    expect(wrong.json.access_token).toBeUndefined();
    const pix = hosted.credentials.pix!;
    const token = await bankCall(hosted, '/oauth/token', {
      method: 'POST',
      headers: { ...form, authorization: basicOf(pix.clientId, pix.clientSecret) },
      body: 'grant_type=client_credentials&scope=pix.read',
    });
    expect(token.status).toBe(200);
    expect(typeof token.json.access_token).toBe('string');
    expect((await bankCall(hosted, '/api/v2/webhook')).status).toBe(401);
    expect((await bankCall(hosted, '/api/v2/pix/E01181521202611270000abcdefghijk')).status).toBe(401);
    const info = await hosted.control.info();
    expect(info).toMatchObject({
      pixBaseUrl: expect.stringMatching(/\/api\/v2$/),
      pixTokenUrl: expect.stringMatching(/\/oauth\/token$/),
      pixKeys: expect.any(Array),
    });
    // Where the Pix credentials are, never their values.
    expect(info.credentials.pix).toEqual({
      clientId: `(in Secrets Manager: ${hosted.pixSecretArn})`,
      clientSecret: `(in Secrets Manager: ${hosted.pixSecretArn})`,
    });
  });

  it("serves Pix Automático's webhooks and reads too: a webhookrec registered is read back, a recurrence unknown is the standard's 404", async () => {
    const pix = hosted.credentials.pix!;
    const token = await bankCall(hosted, '/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${pix.clientId}:${pix.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=webhookrec.write webhookrec.read rec.read',
    });
    const bearer = { authorization: `Bearer ${token.json.access_token}` };
    const put = await bankCall(hosted, '/api/v2/webhookrec', {
      method: 'PUT',
      headers: bearer,
      body: { webhookUrl: 'https://staging.example.com/pix' },
    });
    expect(put.status).toBe(200);
    expect((await bankCall(hosted, '/api/v2/webhookrec', { headers: bearer })).json).toMatchObject({
      webhookUrl: 'https://staging.example.com/pix',
    });
    const unknown = await bankCall(hosted, '/api/v2/rec/RN0118152120260101abcdefghijk', { headers: bearer });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado' });
  });

  it('answers a control path through the URL 403, saying the control API takes Lambda Invoke only', async () => {
    const answer = await bankCall(hosted, '/control/info');
    expect(answer.status).toBe(403);
    expect(answer.json.error).toMatch(/Lambda Invoke only/);
  });
});

describe('notifications', () => {
  it("delivers a settlement to the contract's URL with its token, after storing the change (the receiver's query finds it settled), and logs it", async () => {
    const receiver = await startReceiver();
    try {
      const contract = (await hosted.control.contracts())[0];
      await hosted.control.changeContract(contract.idContrato, { url: receiver.url, token: 'staging-boleto-token' });
      const boleto = await hosted.control.createBoleto({ valor: '99.90' });
      const change = await hosted.control.settleBoleto(boleto.nossoNumero);
      expect(change.skipped).toBeNull();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].body).toEqual(expect.objectContaining({ nossoNumero: boleto.nossoNumero }));
      expect(receiver.received[0].headers['x-webhook-token']).toBe('staging-boleto-token');
      expect(receiver.received[0].situacaoDuringDelivery).toMatch(/^LIQUIDADO/);
      const log = await hosted.control.deliveries();
      const line = log.find((d) => d.notificationId === change.notificationId);
      expect(line).toEqual(
        expect.objectContaining({ outcome: 'ENTREGUE', status: 200, authHeader: 'x-webhook-token', url: receiver.url }),
      );
      expect(JSON.stringify(log)).not.toContain('staging-boleto-token');
      expect(await hosted.control.waitForDeliveries(1_000)).toBe(true);
    } finally {
      await receiver.stop();
    }
  });

  it('carries out the duplicate and lose faults, and refuses the reorder window it cannot hold, saying why', async () => {
    const receiver = await startReceiver();
    try {
      const contract = (await hosted.control.contracts())[0];
      await hosted.control.changeContract(contract.idContrato, { url: receiver.url });
      await hosted.control.setFaults({ duplicateDeliveries: 1 });
      const twice = await hosted.control.createBoleto({ valor: '10.00' });
      await hosted.control.settleBoleto(twice.nossoNumero);
      expect(
        receiver.received.filter((r) => (r.body as { nossoNumero?: string }).nossoNumero === twice.nossoNumero),
      ).toHaveLength(2);
      await hosted.control.setFaults({ loseDeliveries: true });
      const lost = await hosted.control.createBoleto({ valor: '11.00' });
      const change = await hosted.control.settleBoleto(lost.nossoNumero);
      expect(receiver.received.some((r) => (r.body as { nossoNumero?: string }).nossoNumero === lost.nossoNumero)).toBe(
        false,
      );
      expect((await hosted.control.deliveries()).find((d) => d.notificationId === change.notificationId)?.outcome).toBe(
        'NÃO ENTREGUE',
      );
      const refused = await hosted.control.setFaults({ reorderWindowMs: 500 }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SimulatorControlError);
      expect((refused as SimulatorControlError).message).toMatch(
        /reorderWindowMs is not available in a deployed simulator/,
      );
    } finally {
      await receiver.stop();
    }
  });
});

describe('its state in DynamoDB', () => {
  it('loses no change under concurrent requests from both environments: 16 boletos made at once get 16 numbers', async () => {
    const made = await Promise.all(
      Array.from({ length: 16 }, (_, i) => hosted.control.createBoleto({ valor: `${i + 1}.00` })),
    );
    expect(new Set(made.map((b) => b.nossoNumero)).size).toBe(16);
    for (const boleto of made) expect((await hosted.control.getBoleto(boleto.nossoNumero)).valor).toBe(boleto.valor);
  });

  it('holds a fault for the given number of calls whichever environment answers them', async () => {
    await hosted.control.setFaults({ api: [{ scope: 'query', status: 503, times: 2 }] });
    const boleto = await hosted.control.createBoleto({ valor: '5.00' });
    const headers = await collectionHeaders(hosted);
    const query = () =>
      bankCall(
        hosted,
        `/cobranca/boleto/v1/boletos?codigoBeneficiario=${hosted.accounts[0].beneficiario}&nossoNumero=${boleto.nossoNumero}`,
        { headers },
      );
    expect([(await query()).status, (await query()).status, (await query()).status]).toEqual([503, 503, 200]);
  });

  it('keeps nothing from 100 requests it refuses (401, 403): no write, its counters, rate bucket and fault budgets as they were', async () => {
    await hosted.control.setFaults({
      api: [{ scope: 'query', status: 503, times: 1 }],
      rateLimitPerSecond: { query: 50 },
    });
    const boleto = await hosted.control.createBoleto({ valor: '7.00' });
    const version = async () =>
      Number(
        (
          await hosted.dynalite.client.send(
            new GetItemCommand({
              TableName: hosted.tableName,
              Key: { [SANDBOX_STATE_KEY.attribute]: { S: SANDBOX_STATE_KEY.value } },
              ConsistentRead: true,
            }),
          )
        ).Item?.version?.N,
      );
    const before = await version();
    const query = `/cobranca/boleto/v1/boletos?codigoBeneficiario=${hosted.accounts[0].beneficiario}&nossoNumero=${boleto.nossoNumero}`;
    const refused = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i % 4 === 0
          ? bankCall(hosted, '/control/boletos', {})
          : bankCall(hosted, query, {
              headers: i % 2 ? { 'x-api-key': 'guess', cooperativa: '0101', posto: '02' } : {},
            }),
      ),
    );
    expect([...new Set(refused.map((r) => r.status))].sort()).toEqual([401, 403]);
    expect(await version()).toBe(before);
    // The fault's one answer is still there for the first call with credentials.
    const headers = await collectionHeaders(hosted);
    expect((await bankCall(hosted, query, { headers })).status).toBe(503);
    expect((await bankCall(hosted, query, { headers })).status).toBe(200);
  });

  it('logs no credential value', () => {
    const stored = JSON.parse(hosted.secrets.currentValue(hosted.secretArn)!) as Record<string, string>;
    const all = hosted.logs.join('\n');
    for (const field of ['apiKey', 'password', 'clientSecret']) expect(all).not.toContain(stored[field]);
    expect(all).not.toContain(hosted.credentials.pix!.clientSecret);
  });
});
