import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCallError, httpCall } from '../../simulator/https-client';
import { BankSimulator } from '../../simulator/simulator';
import { bankCall, collectionHeaders, contractBody, paymentsHeaders } from '../support/bank-session';

let simulator: BankSimulator;

beforeAll(async () => {
  simulator = await BankSimulator.start();
});

afterAll(async () => {
  await simulator.stop();
});

describe('bank simulator server', () => {
  it('listens on loopback over HTTPS, and exposes every URL and its CA file', async () => {
    const info = await simulator.control.info();
    expect(info).toEqual(
      expect.objectContaining({
        baseUrl: simulator.baseUrl,
        registrationBaseUrl: `${simulator.baseUrl}/pagamentos`,
        collectionTokenUrl: `${simulator.baseUrl}/auth/openapi/token`,
        paymentsTokenUrl: `${simulator.baseUrl}/thirdparty/auth/token`,
        caFile: simulator.caFile,
      }),
    );
    expect(simulator.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(readFileSync(simulator.caFile, 'utf8')).toBe(simulator.caPem);
  });

  it('refuses TLS 1.1 and negotiates TLS 1.2', async () => {
    const refused = await httpCall(`${simulator.baseUrl}/control/info`, {
      trustedCas: [simulator.caPem],
      minTlsVersion: 'TLSv1',
      maxTlsVersion: 'TLSv1.1',
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(describeCallError(refused)).toMatch(/^no TLS version in common/);
    const tls12 = await httpCall(`${simulator.baseUrl}/control/info`, {
      trustedCas: [simulator.caPem],
      maxTlsVersion: 'TLSv1.2',
    });
    expect(tls12.tlsProtocol).toBe('TLSv1.2');
  });

  it('is not trusted without its CA', async () => {
    await expect(httpCall(`${simulator.baseUrl}/control/info`)).rejects.toMatchObject({
      code: expect.stringMatching(/^(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/),
    });
  });

  it('answers 404 for unknown paths and 413 for bodies over 1 MiB', async () => {
    const unknown = await bankCall(simulator, '/cobranca/boleto/v2/boletos');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ message: 'No resource at /cobranca/boleto/v2/boletos.' });
    const large = await bankCall(simulator, '/control/boletos', { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) });
    expect(large.status).toBe(413);
  });

  it('removes the temporary folder it made when stopped, and keeps a folder it was given', async () => {
    const own = await BankSimulator.start();
    const given = mkdtempSync(join(tmpdir(), 'given-'));
    const kept = await BankSimulator.start({ dir: given });
    await own.stop();
    await kept.stop();
    expect(existsSync(own.caFile)).toBe(false);
    expect(existsSync(join(given, 'ca.crt'))).toBe(true);
    rmSync(given, { recursive: true, force: true });
  });

  it('says which port is taken, and leaves no files behind', async () => {
    const port = Number(new URL(simulator.baseUrl).port);
    // The module object the simulator calls into, so the spy sees the folder it makes.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fs = require('node:fs') as typeof import('node:fs');
    const made: string[] = [];
    const original = fs.mkdtempSync;
    const spy = jest.spyOn(fs, 'mkdtempSync').mockImplementation((prefix: string) => {
      const path = original(prefix);
      made.push(path);
      return path;
    });
    try {
      await expect(BankSimulator.start({ port })).rejects.toThrow(
        `The bank simulator cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}. Pick another port (--port), or 0 for a free one.`,
      );
    } finally {
      spy.mockRestore();
    }
    expect(made).toHaveLength(1);
    expect(existsSync(made[0])).toBe(false);
  });

  it('refuses an empty account list', async () => {
    await expect(BankSimulator.start({ accounts: [] })).rejects.toThrow(/needs at least one account/);
  });

  it('refuses invalid faults given at start', async () => {
    await expect(BankSimulator.start({ faults: { api: [{ scope: 'all', status: 418 }] } })).rejects.toThrow(
      'Invalid faults: api[0].status must be 429 or 5xx.',
    );
  });
});

describe('control API: state and housekeeping', () => {
  it('lists contracts and registrations as the bank holds them', async () => {
    const headers = await collectionHeaders(simulator);
    await bankCall(simulator, '/cobranca/boleto/v1/webhook/contrato/', {
      method: 'POST',
      headers,
      body: contractBody(simulator),
    });
    await bankCall(simulator, '/pagamentos/v1/associado/webhook', {
      method: 'PATCH',
      headers: await paymentsHeaders(simulator),
      body: { urlCallback: 'https://r.example.com/p', authorizationCallback: 't' },
    });
    expect(await simulator.control.contracts()).toEqual([
      expect.objectContaining({ idContrato: expect.any(Number), url: 'https://receiver.example.com/boleto' }),
    ]);
    expect(await simulator.control.registrations()).toEqual([
      { cooperativa: '0101', conta: '123456', urlCallback: 'https://r.example.com/p', authorizationCallback: 't' },
    ]);
  });

  it('clears the delivery log, keeping the sequence going', async () => {
    const boleto = await simulator.control.createBoleto({ valor: '1' });
    await simulator.control.cancelBoleto(boleto.nossoNumero);
    const last = (await simulator.control.deliveries()).at(-1)!.seq;
    await simulator.control.clearDeliveries();
    expect(await simulator.control.deliveries()).toEqual([]);
    await simulator.control.rejectBoleto((await simulator.control.createBoleto({ valor: '1' })).nossoNumero);
    expect((await simulator.control.deliveries()).map((r) => r.seq)).toEqual([last + 1]);
  });

  it.each([
    ['a PEM that is not one', '/trusted-cas', { pem: 'hello' }, 'pem must be a PEM certificate.'],
    ['a clock that goes back', '/clock', { advanceSeconds: -5 }, 'advanceSeconds must be a number >= 0.'],
    [
      'a wait longer than ten minutes',
      '/deliveries/wait',
      { timeoutMs: 700_000 },
      'timeoutMs must be between 0 and 600000.',
    ],
  ])('refuses %s', async (_case, path, body, message) => {
    const answer = await bankCall(simulator, `/control${path}`, { method: 'POST', body });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: message });
  });
});
