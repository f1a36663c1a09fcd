import { readFileSync } from 'node:fs';
import { BankSimulator, readPemFile, type BankSimulatorOptions } from '../simulator/simulator';
import { checkEndpoint, formatCheckTable } from './check-endpoint/check-endpoint';
import { CliExit } from '../contracts/operations';
import type { AwsOptions } from './operate/aws';
import { OperatorError } from './operate/aws';
import {
  auditCommand,
  dlqCommand,
  replayCommand,
  reverifyCommand,
  statusCommand,
  sweepCommand,
  traceCommand,
} from './operate/commands';
import { logsCommand } from './operate/logs';
import { commandHelp, exitLines, nearest, parseCommand, UsageError, wantsHelp } from './command-line';
import { COMMANDS } from './command-specs';
import { sandboxCommand } from './sandbox';
import { quoted } from './table';

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Resolves when the user asks `simulate` to stop (SIGINT/SIGTERM in the real program). */
  readonly stopRequested: Promise<void>;
  /** Where and as whom the operator commands call AWS, beyond --region and --profile (tests, the local runner). */
  readonly aws?: AwsOptions;
  /** The clock of the operator commands (tests). */
  readonly now?: () => number;
}

/** The program's usage: every command's line and summary, from the same specs as each command's own help. */
export function usage(): string {
  const line = (name: string) => {
    const spec = COMMANDS[name];
    return `  ${spec.usage}\n      ${spec.summary}`;
  };
  return [
    'Usage: cdk-bank-webhooks <command> [options]',
    '       cdk-bank-webhooks <command> --help     (or: cdk-bank-webhooks help <command>) for its options, examples and exit statuses',
    '',
    'Locally:',
    ...['simulate', 'check-endpoint'].map(line),
    '',
    'Operating a deployed receiver (your AWS credentials; --stack NAME; docs/operations.md, "The operator CLI"):',
    ...['status', 'trace', 'dlq list', 'dlq redrive', 'dlq delete', 'reverify', 'replay', 'sweep', 'audit', 'logs'].map(
      line,
    ),
    '',
    'A deployed BankSandbox (docs/sandbox.md):',
    line('sandbox'),
    '',
    'Exit status:',
    ...exitLines(),
  ].join('\n');
}

/** A PEM file named on the command line; a bad one is a usage error. */
function pemOption(path: string, option: string): string {
  try {
    return readPemFile(path, option);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function wholeNumber(value: string | undefined, option: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new UsageError(`${option} must be a whole number from ${min} to ${max} (got "${value}").`);
  return number;
}

async function simulate(args: string[], io: CliIo): Promise<number> {
  const { values: v, positionals } = parseCommand('simulate', args);
  const values = v as {
    port?: string;
    host?: string;
    dir?: string;
    'cert-host'?: string[];
    'ca-cert'?: string;
    'ca-key'?: string;
    'trust-ca'?: string[];
    'delivery-timeout-ms'?: string;
    'token-lifetime-seconds'?: string;
  };
  if (positionals.length) throw new UsageError(`simulate takes no arguments (got ${positionals.join(' ')}).`);
  if (!!values['ca-cert'] !== !!values['ca-key']) throw new UsageError('--ca-cert and --ca-key go together.');
  const options: BankSimulatorOptions = {
    port: wholeNumber(values.port, '--port', 0, 65535) ?? 8443,
    host: values.host,
    hosts: values['cert-host'],
    dir: values.dir,
    ca: values['ca-cert']
      ? { certPem: pemOption(values['ca-cert'], '--ca-cert'), keyPem: pemOption(values['ca-key']!, '--ca-key') }
      : undefined,
    trustedCas: (values['trust-ca'] ?? []).map((file) => pemOption(file, '--trust-ca')),
    deliveryTimeoutMs: wholeNumber(values['delivery-timeout-ms'], '--delivery-timeout-ms', 1, 600_000),
    tokenLifetimeSeconds: wholeNumber(values['token-lifetime-seconds'], '--token-lifetime-seconds', 1, 86_400),
  };
  const simulator = await BankSimulator.start(options);
  const info = simulator.info;
  const account = info.accounts[0];
  io.out(
    [
      `Bank simulator listening on ${info.baseUrl} (HTTPS, TLS 1.2+)`,
      '',
      `  CA certificate        ${info.caFile}`,
      `  base_url              ${info.baseUrl}`,
      `  registration_base_url ${info.registrationBaseUrl}`,
      `  collection token URL  ${info.collectionTokenUrl}   (password grant, x-api-key, context: COBRANCA)`,
      `  payments token URL    ${info.paymentsTokenUrl}   (client_credentials over mutual TLS)`,
      `  Pix API               ${info.pixBaseUrl}   (the standard API Pix; charges under /api/v3 too)`,
      `  Pix token URL         ${info.pixTokenUrl}   (client_credentials, HTTP Basic, over mutual TLS)`,
      `  control API           ${info.controlUrl}`,
      '',
      'Sample credentials (this simulator only):',
      `  x-api-key             ${info.credentials.collection.apiKey}`,
      `  username / password   ${info.credentials.collection.username} / ${info.credentials.collection.password}   (scope ${info.scopes.collection})`,
      `  client_id             ${info.credentials.payments.clientId}`,
      `  client_secret         ${info.credentials.payments.clientSecret}`,
      `  client certificate    ${info.clientCertFile}`,
      `  client key            ${info.clientKeyFile}`,
      `  scopes                registration ${info.scopes.payments.join(' ')}; queries ${info.scopes.paymentQueries.join(' ')}`,
      ...(info.credentials.pix
        ? [
            `  Pix client_id         ${info.credentials.pix.clientId}`,
            `  Pix client_secret     ${info.credentials.pix.clientSecret}`,
            `  Pix certificate, key  ${info.pixClientCertFile}, ${info.pixClientKeyFile}`,
            `  Pix scopes            ${info.scopes.pix.join(' ')}`,
            `  Pix keys              ${info.pixKeys.join(', ')}`,
            `  Pix callbacks' cert   ${info.pixWebhookCertFile}   (what the provider presents at {webhookUrl}/pix: pin it)`,
          ]
        : []),
      `  account               cooperativa ${account.cooperativa}, posto ${account.posto}, conta ${account.conta}, documento ${account.documento}, beneficiário ${account.beneficiario}`,
      '',
      `Try: curl --cacert ${info.caFile} ${info.controlUrl}/info`,
      'Press Ctrl+C to stop.',
    ].join('\n'),
  );
  await io.stopRequested;
  await simulator.stop();
  io.out('Bank simulator stopped.');
  return 0;
}

async function checkEndpointCommand(args: string[], io: CliIo): Promise<number> {
  const { values: v, positionals } = parseCommand('check-endpoint', args);
  const values = v as { token?: string; header?: string; ca?: string[]; 'timeout-ms'?: string; kind?: string };
  if (positionals.length !== 1) throw new UsageError('check-endpoint takes exactly one URL.');
  if (values.kind !== undefined && values.kind !== 'payment' && values.kind !== 'boleto')
    throw new UsageError(`--kind must be payment or boleto (got "${values.kind}").`);
  if (values.header !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(values.header))
    throw new UsageError(`--header must be an HTTP header name (got "${values.header}").`);
  const rows = await checkEndpoint({
    url: positionals[0],
    token: values.token,
    header: values.header,
    caPems: (values.ca ?? []).map((file) => pemOption(file, '--ca')),
    timeoutMs: wholeNumber(values['timeout-ms'], '--timeout-ms', 1, 600_000),
    kind: values.kind,
  });
  io.out(formatCheckTable(rows));
  return rows.some((row) => row.status === 'fail') ? 1 : 0;
}

/** The actions `dlq` takes. */
const DLQ_ACTIONS: readonly string[] = ['list', 'redrive', 'delete'];

/** The command a command line names (`dlq list`), and the arguments after it. */
function commandOf(argv: readonly string[]): { name: string; args: string[] } {
  const [command, ...args] = argv;
  if (command === 'dlq' && DLQ_ACTIONS.includes(args[0])) return { name: `dlq ${args[0]}`, args: args.slice(1) };
  return { name: command, args };
}

/** `help [command]`, `<command> --help`: a command's help (both of dlq's for `dlq`), or the program's usage. */
function help(name: string | undefined): string {
  if (name === undefined) return usage();
  if (name === 'dlq') return DLQ_ACTIONS.map((action) => commandHelp(`dlq ${action}`)).join('\n\n');
  if (COMMANDS[name]) return commandHelp(name);
  return unknownCommand(name);
}

function unknownCommand(name: string): never {
  const known = [...new Set(Object.keys(COMMANDS).map((c) => c.split(' ')[0]))];
  const guess = nearest(name, [...known, 'help']);
  throw new UsageError(`Unknown command ${quoted(name)}${guess ? `; did you mean "${guess}"?` : '.'}`);
}

/** Runs one command line; returns the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { name, args } = commandOf(argv);
  try {
    if (name === 'help' || name === '--help' || name === '-h') {
      const about = args[0] === 'dlq' && DLQ_ACTIONS.includes(args[1]) ? `dlq ${args[1]}` : args[0];
      io.out(help(about));
      return 0;
    }
    if (name === undefined) {
      io.out(usage());
      return 2;
    }
    if (name === '--version') {
      io.out(
        String((JSON.parse(readFileSync(`${__dirname}/../../package.json`, 'utf8')) as { version: string }).version),
      );
      return 0;
    }
    if (wantsHelp(args) && (COMMANDS[name] || name === 'dlq')) {
      io.out(help(name));
      return 0;
    }
    switch (name) {
      case 'simulate':
        return await simulate(args, io);
      case 'check-endpoint':
        return await checkEndpointCommand(args, io);
      case 'status':
        return await statusCommand(args, io);
      case 'trace':
        return await traceCommand(args, io);
      case 'dlq list':
      case 'dlq redrive':
      case 'dlq delete':
      case 'dlq':
        return await dlqCommand(name === 'dlq' ? args : [name.slice(4), ...args], io);
      case 'reverify':
        return await reverifyCommand(args, io);
      case 'replay':
        return await replayCommand(args, io);
      case 'sweep':
        return await sweepCommand(args, io);
      case 'audit':
        return await auditCommand(args, io);
      case 'logs':
        return await logsCommand(args, io);
      case 'sandbox':
        return await sandboxCommand(args, io);
      default:
        return unknownCommand(name);
    }
  } catch (error) {
    if (error instanceof OperatorError && error.exit !== CliExit.USAGE) {
      io.err(`cdk-bank-webhooks: ${error.message}`);
      return error.exit;
    }
    const isUsage = error instanceof UsageError || error instanceof OperatorError;
    const about = COMMANDS[name]
      ? `Run "cdk-bank-webhooks ${name} --help" for its options.`
      : 'Run "cdk-bank-webhooks help" for the commands.';
    io.err(
      `cdk-bank-webhooks: ${(error as Error).message}${isUsage && !/--help" for its options\.$/.test(error.message) ? `\n${about}` : ''}`,
    );
    return isUsage ? CliExit.USAGE : 1;
  }
}
