/**
 * `npm run local` from a shell (issue 53, item 2): the local stack started as its own process,
 * its `export` lines read from what it prints, and the shipped CLI binary run as a subprocess with
 * them, through every command the runbooks of docs/operations.md name: each finds what the
 * controls made (a quarantined message stays in the dead-letter queue for `status` and `dlq`, a
 * lost settlement for `sweep`, the archive and a consumer rule for `replay`).
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EventBridgeClient, ListRulesCommand } from '@aws-sdk/client-eventbridge';
import { CliExit } from '../../../contracts/operations';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'cdk-bank-webhooks.js');
const run = promisify(execFile);

let local: ChildProcessWithoutNullStreams;
let printed = '';
let env: NodeJS.ProcessEnv;

/** Waits until the local stack has printed `Ready.` `count` times in all. */
async function ready(count: number): Promise<void> {
  const until = Date.now() + 120_000;
  while ((printed.match(/^Ready\.$/gm) ?? []).length < count) {
    if (Date.now() > until) throw new Error(`npm run local did not get ready:\n${printed}`);
    if (local.exitCode !== null) throw new Error(`npm run local exited ${local.exitCode}:\n${printed}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let readies = 1;
async function control(line: string): Promise<string> {
  const before = printed.length;
  local.stdin.write(`${line}\n`);
  await ready(++readies);
  return printed.slice(before);
}

/** The shipped CLI, in a shell of its own with the exports: status, stdout and stderr. */
async function cli(args: readonly string[]): Promise<{ status: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--stack', env.STACK!], {
      env,
      cwd: ROOT,
      timeout: 120_000,
    });
    return { status: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : -1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

beforeAll(async () => {
  local = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'tools', 'local-runner', 'local.ts')],
    { cwd: ROOT, env: { ...process.env } },
  );
  local.stdout.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  local.stderr.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  await ready(1);
  // The exports, as a shell would take them: only those, on a clean environment.
  env = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const line of printed.split('\n').filter((l) => /^\s+export /.test(l))) {
    for (const [, name, value] of line.matchAll(/(\w+)=(\S+)/g)) env[name] = value;
  }
});

afterAll(async () => {
  if (local && local.exitCode === null) {
    local.stdin.end('quit\n');
    await new Promise((resolve) => local.once('exit', resolve));
  }
});

it("prints where each function's log goes, so a runbook's 'the processor log' can be found", () => {
  const dir = /Each function's log \(.*\): (\S+)\/<function>\.log,/.exec(printed)?.[1];
  expect(dir).toBeDefined();
  expect(printed).toContain(`tail -f ${dir}/processor.log`);
  // The functions write there (the registrations logged at start).
  expect(readdirSync(dir!).some((file) => file.endsWith('.log'))).toBe(true);
});

it("prints what a shell needs: the region, credentials, every endpoint on loopback, and the stack's name", () => {
  expect(env.AWS_REGION).toBe('us-east-1');
  expect(env.STACK).toBe('BankWebhooksLocal');
  for (const service of ['CLOUDFORMATION', 'CLOUDWATCH', 'DYNAMODB', 'EVENTBRIDGE', 'LAMBDA', 'S3', 'SQS']) {
    expect(env[`AWS_ENDPOINT_URL_${service}`]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  }
});

it('runs every command the runbooks name from another shell, each finding what the controls made', async () => {
  // What the runbooks ask about: a notified settlement, a lost one, a quarantined message.
  const settled = /boleto (\d{9}) settled and notified/.exec(await control('settle'))![1];
  const lost = /boleto (\d{9}) settled; the bank lost/.exec(await control('lose'))![1];
  expect(await control('quarantine')).toContain('it is in the notifications dead-letter queue');

  // The quarantined message stays for the operator: status needs attention, dlq list shows it.
  const status = await cli(['status']);
  expect(status).toMatchObject({ status: CliExit.ATTENTION });
  expect(status.out).toMatch(/notifications dead-letter\s+1\s/);
  expect((await cli(['dlq', 'list'])).out).toContain('not recognisably a Pix, boleto or tax payment');
  // The processor's line that quarantined it names the id it had in the notification queue.
  const quarantinedLine = await cli(['logs', 'processor', '--filter', '"not recognisably"']);
  expect(quarantinedLine.status).toBe(CliExit.OK);
  const quarantinedId = /"messageId":"([^"]+)"/.exec(quarantinedLine.out)![1];

  // The lost settlement: the sweep finds it, and trace shows it recovered.
  const swept = await cli(['sweep']);
  expect(swept).toMatchObject({ status: CliExit.OK });
  expect(swept.out).toMatch(/listed changes sent to be verified 1 /);
  await control('help'); // the look is processed meanwhile
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  // Every command the runbooks name, with their placeholders filled as an operator would.
  const operations = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')
    .split('\n## Runbooks\n')[1]
    .split('\n## ')[0];
  const today = new Date().toISOString().slice(0, 10);
  const events = new EventBridgeClient({
    region: env.AWS_REGION,
    endpoint: env.AWS_ENDPOINT_URL_EVENTBRIDGE,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  const rules = (await events.send(new ListRulesCommand({}))).Rules ?? [];
  events.destroy();
  const consumerRule = rules.find((r) => r.Name!.startsWith('BankWebhooksBoletoSettledRule'))!.Name!;
  const fill: Record<string, string> = {
    '<text of the reason>': 'not recognisably',
    '<when it broke>': today,
    '<when it began>': today,
    '<now>': today,
    "<its rule's name>": consumerRule,
    '<nossoNumero | idTransacao>': settled,
    '<subject>': lost,
    '<that messageId>': quarantinedId,
  };
  const commands = [...new Set([...operations.matchAll(/`cdk-bank-webhooks ([^`]+)`/g)].map((m) => m[1]))]
    // `reverify` alone is a mention of the one with its window.
    .filter((command) => command !== 'reverify');
  expect(commands.length).toBeGreaterThanOrEqual(12);
  for (const command of commands) {
    const args = (
      Object.entries(fill)
        .reduce((text, [placeholder, value]) => text.split(placeholder).join(value), command)
        .match(/'[^']*'|"[^"]*"|\S+/g) ?? []
    ).map((a) => (/^(['"]).*\1$/.test(a) ? a.slice(1, -1) : a));
    const result = await cli(args);
    expect({
      command,
      status: result.status,
      err: result.err.replace(/\(node:\d+\)[\s\S]*?trace-warnings[^\n]*\n/g, '').trim(),
    }).toEqual({ command, status: expect.any(Number), err: expect.not.stringMatching(/cdk-bank-webhooks:/) });
    expect({ command, ok: [CliExit.OK, CliExit.ATTENTION].includes(result.status) }).toEqual({ command, ok: true });
  }
  // The logs the runbooks read: the quarantined message's lines in the processor's log, the refused requests in the access log.
  const quarantineLines = await cli(['logs', 'processor', '--filter', `"${quarantinedId}"`]);
  expect(quarantineLines).toMatchObject({ status: CliExit.OK });
  expect(quarantineLines.out).toMatch(new RegExp(`^\\S+Z  \\{.*${quarantinedId}`, 'm'));
  expect((await cli(['logs', 'access', '--filter', '{ $.status = "200" }'])).out).toMatch(
    /"resourcePath":"\/boleto","status":"200"/,
  );
  expect(await cli(['logs', 'nonsense'])).toMatchObject({ status: CliExit.USAGE });
  // The trace of the recovered settlement says so; the replay completed to that one rule.
  expect((await cli(['trace', lost])).out).toMatch(/recovered\s+no notification of settled:/);
  // (a replay's name carries its second: one more a second later)
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const replay = await cli(['replay', '--from', today, '--to', today, '--rule', consumerRule, '--wait']);
  expect(replay.out).toMatch(/: COMPLETED/);
});

it("practises Pix received: a charge paid, a key paid, a refund of a nature, a MED, another customer's Pix, a lost callback; trace, sweep, reverify and audit show them", async () => {
  // The window of what this test does (the test before it settled boletos the same day).
  const start = new Date(Date.now() - 1_000).toISOString();
  const charged = /paid by Pix (\S+), notified/.exec(await control('pix-charge'))![1];
  expect((await cli(['trace', charged])).out).toMatch(/Pix Received/);
  expect(await control('pix-refund')).toMatch(/refunded in full \(ORIGINAL/);
  const keyed = /Pix (\S+) paid to the key/.exec(await control('pix-key'))![1];
  const med = /refunded in full \(MED_FRAUDE, refund (\S+)\)/.exec(await control('pix-refund med_fraude'))![1];
  expect(await control('pix-refund nonsense')).toContain('Unknown refund nature "nonsense"');
  // A refund is a subject of its own: pix-refund:<endToEndId>:<its id>.
  expect((await cli(['trace', `pix-refund:${keyed}:${med}`])).out).toMatch(/Pix Refund/);
  expect(await control('pix-foreign')).toContain('dropped and counted');
  const lost = /Pix (\S+) paid \(charge/.exec(await control('pix-lose'))![1];
  // Lost: nothing known of it until the sweep lists the day's Pix.
  expect((await cli(['trace', lost])).status).toBe(CliExit.ATTENTION);
  const swept = await cli(['sweep']);
  expect(swept.status).toBe(CliExit.OK);
  await control('help'); // the look is processed meanwhile
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect((await cli(['trace', lost])).out).toMatch(/Pix Received/);

  // A refund traced by its own id alone: found in the journal's index.
  expect((await cli(['trace', med])).out).toMatch(new RegExp(`Subject pix-refund:${keyed}:${med}[\\s\\S]*Pix Refund`));

  // reverify asks the provider again about each Pix and refund the day's callbacks named: nothing changed, nothing published again.
  const reverify = await cli(['reverify', '--from', start, '--to', new Date().toISOString()]);
  expect(reverify.status).toBe(CliExit.OK);
  expect(reverify.out).toContain(`  pix:${charged}\n`);
  expect(reverify.out).toContain(`  pix-refund:${keyed}:${med}\n`);
  expect(reverify.out).toMatch(/Sent 5 look request\(s\)/);
  await control('help'); // the looks are processed meanwhile
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  // audit over the day: each callback published once or dropped as another key's, the lost one recovered, none twice.
  const audit = await cli(['audit', '--from', start, '--to', new Date().toISOString()]);
  expect(audit.status).toBe(CliExit.OK);
  expect(audit.out).toMatch(/published \(verified\)\s+4\n/);
  expect(audit.out).toMatch(/another key's Pix \(dropped, never published\)\s+1\n/);
  expect(audit.out).toMatch(/events in the audit log\s+5\n/);
  expect(audit.out).toMatch(/delivered again \(same key and content\)\s+0\n/);
  expect(audit.out).toContain('Nothing lost, nothing published twice, nothing unverified.');
});
