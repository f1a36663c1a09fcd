import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { BankSimulator, readPemFile, type BankSimulatorOptions } from '../simulator/simulator';
import { checkEndpoint, formatCheckTable } from './check-endpoint/check-endpoint';

export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** Resolves when the user asks `simulate` to stop (SIGINT/SIGTERM in the real program). */
  readonly stopRequested: Promise<void>;
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

Exit status: 0 on success, 1 when a check fails, 2 on a usage error.`;

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
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    io.err(`cdk-bank-webhooks: ${(error as Error).message}${usage ? '\nRun "cdk-bank-webhooks help" for the options.' : ''}`);
    return usage ? 2 : 1;
  }
}
