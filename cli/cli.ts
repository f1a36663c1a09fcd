import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { BankSimulator, readPemFile, type BankSimulatorOptions } from '../simulator/simulator';
import { checkEndpoint, formatCheckTable } from './check-endpoint/check-endpoint';
import { CliExit } from '../contracts/operations';
import type { AwsOptions } from './operate/aws';
import { OperatorError } from './operate/aws';
import { dlqCommand, replayCommand, reverifyCommand, statusCommand, sweepCommand, traceCommand } from './operate/commands';
import { sandboxCommand } from './sandbox';

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

export const USAGE = `Usage: cdk-bank-webhooks <command> [options]

Commands:
  simulate                 Run the local bank simulator until stopped (Ctrl+C).
      --port N                   port to listen on (default 8443; 0 picks a free one)
      --host ADDRESS             interface to listen on (default 127.0.0.1)
      --cert-host NAME           another name or address for the server certificate (repeatable)
      --dir DIR                  where to write ca.crt, client.crt, client.key (default: a temporary folder)
      --ca-cert FILE --ca-key FILE   use this CA instead of generating one
      --trust-ca FILE            a CA the notifier trusts for your local receiver (repeatable)
      --delivery-timeout-ms N    the bank's delivery deadline (default 10000)
      --token-lifetime-seconds N access token lifetime (default 300)

  check-endpoint <url>     Judge a receiving endpoint by the bank's rules.
      --token T                  the token the bank would send
      --header NAME              header that carries it (default Authorization)
      --ca FILE                  trust this CA too, for a local endpoint (repeatable)
      --timeout-ms N             the deadline (default 10000, the bank's)
      --kind payment|boleto      notification to send (default: boleto when the path ends in /boleto)

Operating a deployed receiver (with your AWS credentials; see docs/operations.md, "The operator CLI"):
  Each takes --stack NAME (the receiver's stack), and --receiver NAME when the stack has several,
  --region REGION, --profile PROFILE.
  status                   Alarms in ALARM, queue depths and ages, the registrations as last watched,
                           notifications stored in the last 24 h.
  trace <id>               One boleto (nossoNumero), payment (idTransacao) or Pix received (endToEndId):
                           its verified state, its trail, and its raw notifications in the journal.
      --kind pix|boleto|tributos   the payment's kind (default: each in turn)
  dlq list                 The messages of a dead-letter queue: age, subject, reason.
  dlq redrive              Send them back to their queue (receive, send, delete); a change already
                           published is not published again.
      --queue notifications|looks  which dead-letter queue (default notifications)
      --reason TEXT              only messages whose reason contains TEXT
      --subject ID               only messages about ID (a subject id, nossoNumero or idTransacao)
      --all                      redrive every message (redrive needs --all or a filter)
      --dry-run                  say what redrive would send, and send nothing
  reverify --from T --to T Ask the bank again about every boleto and payment the journal's
                           notifications of the window named (a day, UTC, or an ISO 8601 time;
                           7 days at most, within the records' lifetime), through the looks'
                           share of the query budget.
      --dry-run                  list the subjects, and request nothing
      --past-records             take a window older than the records' lifetime: what it finds
                                 is published as replays (trigger replay)
  replay --from T --to T --rule NAME
                           Replay the bus archive's events of the window to that one rule (30 days
                           at most; a --to later than now ends now); refused on a bus the receiver
                           did not create (it has no archive).
      --wait                     wait for the replay to end, and exit 5 unless it completed
  sweep                    Run the reconciliation sweep and registration watch now, and print what
                           they found (exit 1 when the sweep could not read everything).

A deployed BankSandbox (docs/sandbox.md), with your AWS credentials (lambda:InvokeFunction on it):
  sandbox <METHOD> <path> [JSON]   One call of its control API, such as
                           sandbox POST /boletos '{"valor": "10.00"}' --function NAME
                           sandbox POST /boletos/001000001/settle --function NAME
      --function NAME            the sandbox's function (the staging pair's SandboxFunctionName output)
      --region REGION, --profile PROFILE

Exit status: 0 on success; 1 when a check fails or something needs attention (status: an alarm in
ALARM or a message in a dead-letter queue; trace: nothing known of the subject); 2 on a usage
error; 3 when AWS cannot be reached as asked (no credentials or region, access denied); 4 when
the stack or the receiver is not found; 5 when a redrive failed part way.`;

class UsageError extends Error {}

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
  if (!Number.isInteger(number) || number < min || number > max) throw new UsageError(`${option} must be a whole number from ${min} to ${max} (got "${value}").`);
  return number;
}

async function simulate(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      port: { type: 'string' }, host: { type: 'string' }, dir: { type: 'string' }, 'cert-host': { type: 'string', multiple: true },
      'ca-cert': { type: 'string' }, 'ca-key': { type: 'string' }, 'trust-ca': { type: 'string', multiple: true },
      'delivery-timeout-ms': { type: 'string' }, 'token-lifetime-seconds': { type: 'string' },
    },
  });
  if (positionals.length) throw new UsageError(`simulate takes no arguments (got ${positionals.join(' ')}).`);
  if (!!values['ca-cert'] !== !!values['ca-key']) throw new UsageError('--ca-cert and --ca-key go together.');
  const options: BankSimulatorOptions = {
    port: wholeNumber(values.port, '--port', 0, 65535) ?? 8443,
    host: values.host,
    hosts: values['cert-host'],
    dir: values.dir,
    ca: values['ca-cert'] ? { certPem: pemOption(values['ca-cert'], '--ca-cert'), keyPem: pemOption(values['ca-key']!, '--ca-key') } : undefined,
    trustedCas: (values['trust-ca'] ?? []).map((file) => pemOption(file, '--trust-ca')),
    deliveryTimeoutMs: wholeNumber(values['delivery-timeout-ms'], '--delivery-timeout-ms', 1, 600_000),
    tokenLifetimeSeconds: wholeNumber(values['token-lifetime-seconds'], '--token-lifetime-seconds', 1, 86_400),
  };
  const simulator = await BankSimulator.start(options);
  const info = simulator.info;
  const account = info.accounts[0];
  io.out([
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
    ...(info.credentials.pix ? [
      `  Pix client_id         ${info.credentials.pix.clientId}`,
      `  Pix client_secret     ${info.credentials.pix.clientSecret}`,
      `  Pix certificate, key  ${info.pixClientCertFile}, ${info.pixClientKeyFile}`,
      `  Pix scopes            ${info.scopes.pix.join(' ')}`,
      `  Pix keys              ${info.pixKeys.join(', ')}`,
      `  Pix callbacks' cert   ${info.pixWebhookCertFile}   (what the provider presents at {webhookUrl}/pix: pin it)`,
    ] : []),
    `  account               cooperativa ${account.cooperativa}, posto ${account.posto}, conta ${account.conta}, documento ${account.documento}, beneficiário ${account.beneficiario}`,
    '',
    `Try: curl --cacert ${info.caFile} ${info.controlUrl}/info`,
    'Press Ctrl+C to stop.',
  ].join('\n'));
  await io.stopRequested;
  await simulator.stop();
  io.out('Bank simulator stopped.');
  return 0;
}

async function checkEndpointCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      token: { type: 'string' }, header: { type: 'string' }, ca: { type: 'string', multiple: true },
      'timeout-ms': { type: 'string' }, kind: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('check-endpoint takes exactly one URL.');
  if (values.kind !== undefined && values.kind !== 'payment' && values.kind !== 'boleto') throw new UsageError(`--kind must be payment or boleto (got "${values.kind}").`);
  if (values.header !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(values.header)) throw new UsageError(`--header must be an HTTP header name (got "${values.header}").`);
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

/** Runs one command line; returns the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'simulate':
        return await simulate(args, io);
      case 'check-endpoint':
        return await checkEndpointCommand(args, io);
      case 'status':
        return await statusCommand(args, io);
      case 'trace':
        return await traceCommand(args, io);
      case 'dlq':
        return await dlqCommand(args, io);
      case 'reverify':
        return await reverifyCommand(args, io);
      case 'replay':
        return await replayCommand(args, io);
      case 'sweep':
        return await sweepCommand(args, io);
      case 'sandbox':
        return await sandboxCommand(args, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? 2 : 0;
      case '--version':
        io.out(String((JSON.parse(readFileSync(`${__dirname}/../../package.json`, 'utf8')) as { version: string }).version));
        return 0;
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (error) {
    if (error instanceof OperatorError && error.exit !== CliExit.USAGE) {
      io.err(`cdk-bank-webhooks: ${error.message}`);
      return error.exit;
    }
    const usage = error instanceof UsageError || error instanceof OperatorError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    io.err(`cdk-bank-webhooks: ${(error as Error).message}${usage ? '\nRun "cdk-bank-webhooks help" for the options.' : ''}`);
    return usage ? 2 : 1;
  }
}
