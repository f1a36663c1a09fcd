/**
 * `cdk-bank-webhooks sandbox`: one control call of a deployed BankSandbox by Lambda Invoke, over
 * the sandbox's bundle run locally and a local Lambda Invoke endpoint.
 */
import { LOCAL_AWS } from '../../tools/local-aws/local-env';
import { LocalLambda } from '../../tools/local-aws/lambda-server';
import { runCli } from '../../cli/cli';
import { type HostedSimulator, startHostedSimulator } from '../support/sandbox-harness';

jest.setTimeout(60_000);

let hosted: HostedSimulator;
const lambda = new LocalLambda();

beforeAll(async () => {
  hosted = await startHostedSimulator({ instances: 1 });
  lambda.serve('bank-sandbox', (payload) => hosted.instances[0].invoke(payload));
  await lambda.start();
});

afterAll(async () => {
  await lambda.stop();
  await hosted?.stop();
});

async function cli(...argv: string[]): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runCli(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    stopRequested: new Promise(() => undefined),
    aws: { region: LOCAL_AWS.region, credentials: LOCAL_AWS.credentials, endpoints: { LAMBDA: lambda.endpoint } },
  });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

it('creates and settles a boleto, printing each answer', async () => {
  const created = await cli('sandbox', 'POST', '/boletos', '{"valor": "10.00"}', '--function', 'bank-sandbox');
  expect(created.status).toBe(0);
  expect(created.out).toMatch(/^HTTP 201\n/);
  const { nossoNumero } = JSON.parse(created.out.replace(/^HTTP 201\n/, '')) as { nossoNumero: string };
  const settled = await cli('sandbox', 'POST', `/control/boletos/${nossoNumero}/settle`, '--function', 'bank-sandbox');
  expect(settled.status).toBe(0);
  expect(settled.out).toContain('"situacao": "LIQUIDADO"');
});

it("exits 1 with the sandbox's error answer, and 2 with what is wrong on the command line", async () => {
  const missing = await cli('sandbox', 'GET', '/boletos/000000042', '--function', 'bank-sandbox');
  expect(missing.status).toBe(1);
  expect(missing.out).toMatch(/^HTTP 404\n[\s\S]*No boleto with nossoNumero 000000042/);
  for (const [argv, message] of [
    [['sandbox', 'GET', '/info'], /needs --function/],
    [['sandbox', 'FETCH', '/info', '--function', 'bank-sandbox'], /method must be one of GET, POST/],
    [['sandbox', 'POST', 'boletos', '--function', 'bank-sandbox'], /path must start with "\/"/],
    [['sandbox', 'POST', '/boletos', '{valor: 1}', '--function', 'bank-sandbox'], /body must be JSON/],
  ] as const) {
    const answer = await cli(...argv);
    expect({ argv, status: answer.status }).toEqual({ argv, status: 2 });
    expect(answer.err).toMatch(message);
  }
});

it('exits 4 when the function does not exist', async () => {
  const answer = await cli('sandbox', 'GET', '/info', '--function', 'no-such-sandbox');
  expect(answer.status).toBe(4);
  expect(answer.err).toMatch(/No function no-such-sandbox in this account and region/);
});
