import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { httpCall } from '../../simulator/https-client';
import { readPemFile } from '../../simulator/simulator';
import { CLI_OUT_FILE } from '../../tools/bundle-handlers';
import { makeReceiverPki, startTarget, type ReceiverPki, type Target } from '../support/tls-targets';

/** These tests run the published bundle, dist/cli/cdk-bank-webhooks.js, as `npx cdk-bank-webhooks` would. */
const run = async (...args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI_OUT_FILE, ...args], {
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

let pki: ReceiverPki;
let dir: string;
let caFile: string;
let good: Target;

beforeAll(async () => {
  pki = makeReceiverPki();
  dir = mkdtempSync(join(tmpdir(), 'cli-test-'));
  caFile = join(dir, 'receiver-ca.crt');
  writeFileSync(caFile, pki.ca.certPem);
  good = await startTarget({
    pair: pki.leaf,
    answer: (r) => ({ status: r.headers.authorization === 't0k3n' ? 200 : 401 }),
  });
});

afterAll(async () => {
  await good.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cdk-bank-webhooks check-endpoint', () => {
  it('exits 0 for a good endpoint whose CA is given with --ca, and prints the table', async () => {
    const result = await run('check-endpoint', `${good.url}/payments`, '--token', 't0k3n', '--ca', caFile);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^CHECK\s+RESULT\s+DETAIL$/m);
    expect(result.stdout).toMatch(/^Certificate\s+PASS\s+CN=localhost/m);
    expect(result.stdout).toContain('5 passed, 0 failed, 0 warnings, 0 skipped');
    expect(result.stdout).not.toContain('t0k3n');
  });

  it('exits 1 for a self-signed endpoint, saying so', async () => {
    const selfSigned = await startTarget({ pair: pki.selfSigned });
    try {
      const result = await run('check-endpoint', selfSigned.url, '--token', 't0k3n');
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^Certificate\s+FAIL\s+self-signed certificate/m);
    } finally {
      await selfSigned.close();
    }
  });

  it('exits 1 for plain HTTP and for an endpoint answering 500', async () => {
    const broken = await startTarget({ pair: pki.leaf, answer: () => ({ status: 500 }) });
    try {
      expect((await run('check-endpoint', 'http://127.0.0.1:9/payments')).code).toBe(1);
      const result = await run('check-endpoint', broken.url, '--token', 'x', '--ca', caFile);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/Notification answered 200\s+FAIL\s+.*answered HTTP 500/);
    } finally {
      await broken.close();
    }
  });

  it.each([
    [['check-endpoint'], /takes exactly one URL/],
    [
      ['check-endpoint', 'https://x', '--timeout-ms', 'soon'],
      /--timeout-ms must be a whole number from 1 to 600000 \(got "soon"\)/,
    ],
    [['check-endpoint', 'https://x', '--kind', 'ted'], /--kind must be payment or boleto/],
    [
      ['check-endpoint', 'https://x', '--ca', '/nonexistent/ca.pem'],
      /--ca \/nonexistent\/ca.pem: cannot read a PEM file/,
    ],
    [['check-endpoint', 'https://x', '--colour'], /check-endpoint has no option --colour/],
    [['simulate', '--port', '70000'], /--port must be a whole number from 0 to 65535/],
    [['simulate', '--ca-cert', 'x.pem'], /--ca-cert and --ca-key go together/],
    [['deploy'], /Unknown command "deploy"/],
  ])('exits 2 with a clear message for %j', async (args, message) => {
    const result = await run(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(
      args[0] === 'deploy'
        ? /Run "cdk-bank-webhooks help" for the commands\./
        : new RegExp(`Run "cdk-bank-webhooks ${args[0]} --help" for its options\\.`),
    );
  });

  it('prints its usage for help, and the package version for --version', async () => {
    const result = await run('help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('check-endpoint <url>');
    const version = await run('--version');
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version,
    );
  });
});

describe('cdk-bank-webhooks simulate', () => {
  it('prints its URLs, CA file and credentials, serves until SIGTERM, then stops cleanly', async () => {
    const simDir = join(dir, 'sim');
    const child = spawn(
      process.execPath,
      [CLI_OUT_FILE, 'simulate', '--port', '0', '--dir', simDir, '--trust-ca', caFile],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`simulate did not start: ${output}${errors}`)), 20_000);
        child.once('exit', (code) => reject(new Error(`simulate exited early (${code}): ${output}${errors}`)));
        child.stdout.on('data', () => output.includes('Press Ctrl+C') && (clearTimeout(timer), resolve()));
      });
      const value = (label: string) => new RegExp(`^\\s+${label}\\s+(\\S+)`, 'm').exec(output)?.[1] ?? '';
      expect(value('CA certificate')).toBe(join(simDir, 'ca.crt'));
      expect(existsSync(join(simDir, 'client.crt')) && existsSync(join(simDir, 'client.key'))).toBe(true);
      expect(value('x-api-key')).toMatch(/^[0-9a-f-]{36}$/);
      expect(value('client_id')).toMatch(/^simulator-client-/);
      const info = await httpCall(`${value('control API')}/info`, {
        trustedCas: [readPemFile(value('CA certificate'), 'ca')],
      });
      expect(info.status).toBe(200);
      expect(JSON.parse(info.body)).toEqual(
        expect.objectContaining({
          baseUrl: value('base_url'),
          registrationBaseUrl: value('registration_base_url'),
          pixBaseUrl: value('Pix API'),
          pixTokenUrl: value('Pix token URL'),
        }),
      );
      expect(value('Pix API')).toBe(`${value('base_url')}/api/v2`);
      expect(value('Pix client_id')).toMatch(/^simulator-pix-/);
      expect(
        ['pix-client.crt', 'pix-client.key', 'pix-webhook.crt'].every((file) => existsSync(join(simDir, file))),
      ).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output).toContain('Bank simulator stopped.');
  });
});
