/**
 * Help per command (issue 53, item 1): `<command> --help` and `help <command>` print the
 * command's usage, options with defaults, two examples and its exit statuses; a mistyped command
 * or option names the nearest known one; one table of exit statuses, the help's and
 * docs/operations.md's; a connection failure is "AWS could not be reached" (3).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_EXIT_MEANING, CliExit } from '../../contracts/operations';
import { runCli } from '../../cli/cli';
import { nearest } from '../../cli/command-line';
import { COMMANDS } from '../../cli/command-specs';
import { explainAwsError } from '../../cli/operate/aws';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    stopRequested: new Promise(() => undefined),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe.each(Object.keys(COMMANDS))('%s --help', (command) => {
  it('prints its usage, every option with its default, two examples and its exit statuses, and exits 0', async () => {
    const viaFlag = await run(...command.split(' '), '--help');
    expect(viaFlag).toMatchObject({ code: 0, err: '' });
    const text = viaFlag.out;
    const spec = COMMANDS[command];
    expect(text).toContain(`Usage: cdk-bank-webhooks ${spec.usage} [options]`);
    for (const [option, o] of Object.entries(spec.options)) {
      expect(text).toContain(`--${option}`);
      if (o.default) expect(text).toContain(`(default: ${o.default})`);
    }
    expect(text.split('\n').filter((line) => line.startsWith('  cdk-bank-webhooks '))).toHaveLength(2);
    // Its own exit statuses only: the general meaning, with this command's detail where it has one.
    const printed = text.slice(text.indexOf('Exit status:')).split('\n').slice(1);
    expect(printed.map((line) => Number(line.trim().split(' ')[0]))).toEqual([...new Set(spec.exits)].sort());
    for (const exit of spec.exits) {
      const detail = spec.exitDetails?.[exit];
      expect(printed).toContain(
        detail
          ? `  ${exit}  ${CLI_EXIT_MEANING[exit].replace(/ \(each command says what, in its --help\)$/, '')}: ${detail}`
          : `  ${exit}  ${CLI_EXIT_MEANING[exit]}`,
      );
    }
    // No other command's meaning (the help of status says nothing of trace or sweep).
    for (const [other, otherSpec] of Object.entries(COMMANDS))
      for (const detail of Object.values(otherSpec.exitDetails ?? {}))
        if (other !== command && !Object.values(spec.exitDetails ?? {}).includes(detail))
          expect(printed.join('\n')).not.toContain(detail);
    // The same from `help <command>` and from -h.
    expect((await run('help', ...command.split(' '))).out).toBe(text);
    expect((await run(...command.split(' '), '-h')).out).toBe(text);
  });
});

it('prints both dlq actions for "dlq --help", and the program\'s usage (each command, the exit statuses) for "help"', async () => {
  const dlq = await run('dlq', '--help');
  expect(dlq.code).toBe(0);
  expect(dlq.out).toContain('Usage: cdk-bank-webhooks dlq list [options]');
  expect(dlq.out).toContain('Usage: cdk-bank-webhooks dlq redrive (--all | --reason TEXT | --subject ID) [options]');
  const all = await run('help');
  expect(all.code).toBe(0);
  for (const spec of Object.values(COMMANDS)) expect(all.out).toContain(spec.usage);
  for (const meaning of Object.values(CLI_EXIT_MEANING)) expect(all.out).toContain(meaning);
});

it.each([
  [['stauts'], 'Unknown command "stauts"; did you mean "status"?'],
  [['reverfy', '--from', '2026-11-25'], 'Unknown command "reverfy"; did you mean "reverify"?'],
  [['deploy'], 'Unknown command "deploy".'],
  [['dep\u0007loy'], 'Unknown command "dep\\u0007loy".'],
  [['trase', '1'], 'Unknown command "trase"; did you mean "trace"?'],
  [
    ['reverify', '--fom', '2026-11-25', '--to', '2026-11-25', '--stack', 'S'],
    'reverify has no option --fom; did you mean --from?',
  ],
  [['dlq', 'redrive', '--dryrun', '--stack', 'S'], 'dlq redrive has no option --dryrun; did you mean --dry-run?'],
  [['status', '--colour', '--stack', 'S'], 'status has no option --colour.'],
  [['status', '--stack'], 'status: --stack needs a value.'],
])('exits 2 for %j, naming the nearest known word', async (argv, message) => {
  const result = await run(...argv);
  expect(result.code).toBe(CliExit.USAGE);
  expect(result.err).toContain(message);
  expect(result.err).not.toMatch(/place it at the end of the command after '--'/);
});

it('finds the nearest word only when it is near enough to be a slip', () => {
  expect(nearest('trce', ['trace', 'status'])).toBe('trace');
  expect(nearest('xyz', ['trace', 'status'])).toBeUndefined();
});

it("holds docs/operations.md's table of exit statuses to the one the help prints", () => {
  const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');
  const rows = [...docs.matchAll(/^\| (\d) \| (.+) \|$/gm)].map((m) => [Number(m[1]), m[2]]);
  expect(rows).toEqual(Object.entries(CLI_EXIT_MEANING).map(([exit, meaning]) => [Number(exit), meaning]));
});

it('reports AWS out of reach (a refused connection, an unknown host, a time-out) as exit 3, saying what to check', () => {
  for (const error of [
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED' }),
    Object.assign(new Error('getaddrinfo ENOTFOUND sqs.us-east-1.localhost'), { code: 'ENOTFOUND' }),
    Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' }),
  ]) {
    const explained = explainAwsError(error, 'status') as Error & { exit?: CliExit };
    expect(explained.exit).toBe(CliExit.AWS_ACCESS);
    expect(explained.message).toMatch(/^AWS could not be reached for status .*AWS_ENDPOINT_URL_/);
  }
  // Anything else stays what it was.
  expect((explainAwsError(new Error('boom'), 'status') as { exit?: CliExit }).exit).toBeUndefined();
});

it('answers a real connection failure with exit 3: status against an endpoint nobody listens on', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['status', '--stack', 'Billing', '--region', 'us-east-1'], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    stopRequested: new Promise(() => undefined),
    aws: {
      endpoints: { CLOUDFORMATION: 'http://127.0.0.1:9' },
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    },
  });
  expect({ code, err: err.join('\n') }).toEqual({
    code: CliExit.AWS_ACCESS,
    err: expect.stringMatching(/AWS could not be reached for reading stack "Billing" \(ECONNREFUSED\)/),
  });
});
