/**
 * Every command of `cdk-bank-webhooks`: its arguments, its options (what the parser reads and what
 * its help prints are one list), two examples and its exit statuses. `<command> --help` and
 * `help <command>` print one; a mistyped command or option is answered with the nearest known one.
 */
import { CliExit } from '../contracts/operations';

/** One option: how the parser reads it, and what its help says. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  /** The value's placeholder in the help (`N`, `FILE`). */
  readonly value?: string;
  readonly help: string;
  /** What applies when it is left out, as the help says it. */
  readonly default?: string;
}

export interface CommandSpec {
  /** The command line after the program's name, before the options (`trace <id>`). */
  readonly usage: string;
  readonly summary: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  readonly examples: readonly [string, string];
  readonly exits: readonly CliExit[];
  /** What an exit status means for this command alone, where it says more than the general meaning. */
  readonly exitDetails?: Readonly<Partial<Record<CliExit, string>>>;
}

/** The options every operator command takes. */
const OPERATOR: Readonly<Record<string, OptionSpec>> = {
  stack: {
    type: 'string',
    value: 'NAME',
    help: "the receiver's stack (its operator manifest output names everything else)",
    default: 'required',
  },
  receiver: {
    type: 'string',
    value: 'NAME',
    help: "the receiver's receiverName, when the stack has several",
    default: "the stack's only receiver",
  },
  region: { type: 'string', value: 'REGION', help: 'the AWS region', default: "AWS_REGION, or the profile's" },
  profile: { type: 'string', value: 'PROFILE', help: 'the AWS profile', default: 'AWS_PROFILE, or the default chain' },
};
const OPERATOR_EXITS = [CliExit.OK, CliExit.USAGE, CliExit.AWS_ACCESS, CliExit.NOT_FOUND] as const;
const WINDOW: Readonly<Record<string, OptionSpec>> = {
  from: {
    type: 'string',
    value: 'T',
    help: "the window's start: a day (2026-11-25, UTC) or an ISO 8601 time with its zone (2026-11-25T14:00:00Z)",
    default: 'required',
  },
  to: {
    type: 'string',
    value: 'T',
    help: "the window's end, the same way (a day stands for all of it)",
    default: 'required',
  },
};
/** Which dead-letter queue, and which of its messages. */
const DLQ_FILTERS: Readonly<Record<string, OptionSpec>> = {
  queue: { type: 'string', value: 'notifications|looks', help: 'which dead-letter queue', default: 'notifications' },
  reason: { type: 'string', value: 'TEXT', help: 'only messages whose reason contains TEXT' },
  subject: { type: 'string', value: 'ID', help: 'only messages about ID (a subject id, nossoNumero or idTransacao)' },
};

export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  simulate: {
    usage: 'simulate',
    summary: "Run the local bank simulator (the bank's APIs and the standard Pix API) until stopped (Ctrl+C).",
    options: {
      port: { type: 'string', value: 'N', help: 'port to listen on (0 picks a free one)', default: '8443' },
      host: { type: 'string', value: 'ADDRESS', help: 'interface to listen on', default: '127.0.0.1' },
      'cert-host': {
        type: 'string',
        multiple: true,
        value: 'NAME',
        help: 'another name or address for the server certificate (repeatable)',
      },
      dir: {
        type: 'string',
        value: 'DIR',
        help: 'where to write ca.crt, client.crt, client.key',
        default: 'a temporary folder',
      },
      'ca-cert': { type: 'string', value: 'FILE', help: 'use this CA (with --ca-key) instead of generating one' },
      'ca-key': { type: 'string', value: 'FILE', help: "the CA's key" },
      'trust-ca': {
        type: 'string',
        multiple: true,
        value: 'FILE',
        help: 'a CA the notifier trusts for your local receiver (repeatable)',
      },
      'delivery-timeout-ms': { type: 'string', value: 'N', help: "the bank's delivery deadline", default: '10000' },
      'token-lifetime-seconds': { type: 'string', value: 'N', help: 'access token lifetime', default: '300' },
    },
    examples: ['cdk-bank-webhooks simulate', 'cdk-bank-webhooks simulate --port 0 --dir ./bank --trust-ca ./my-ca.crt'],
    exits: [CliExit.OK, CliExit.USAGE],
  },
  'check-endpoint': {
    usage: 'check-endpoint <url>',
    summary: "Judge a receiving endpoint by the bank's rules (TLS, answer, time).",
    options: {
      token: { type: 'string', value: 'T', help: 'the token the bank would send' },
      header: { type: 'string', value: 'NAME', help: 'the header that carries it', default: 'Authorization' },
      ca: {
        type: 'string',
        multiple: true,
        value: 'FILE',
        help: 'trust this CA too, for a local endpoint (repeatable)',
      },
      'timeout-ms': { type: 'string', value: 'N', help: 'the deadline', default: "10000, the bank's" },
      kind: {
        type: 'string',
        value: 'payment|boleto',
        help: 'the notification to send',
        default: 'boleto when the path ends in /boleto',
      },
    },
    examples: [
      'cdk-bank-webhooks check-endpoint https://webhooks.example.com/boleto --token "$TOKEN"',
      'cdk-bank-webhooks check-endpoint https://127.0.0.1:8444/payments --ca ./ca.crt --kind payment',
    ],
    exits: [CliExit.OK, CliExit.ATTENTION, CliExit.USAGE],
    exitDetails: { [CliExit.ATTENTION]: 'a check failed (each is printed with why)' },
  },
  status: {
    usage: 'status',
    summary:
      "Alarms in ALARM (the receiver's and its consumers'), queue depths and ages, the last sweep, the registrations as last watched, notifications stored in the last 24 h.",
    options: OPERATOR,
    examples: [
      'cdk-bank-webhooks status --stack Billing',
      'cdk-bank-webhooks status --stack Billing --receiver Billing/BankWebhooks --region sa-east-1',
    ],
    exits: [CliExit.OK, CliExit.ATTENTION, CliExit.USAGE, CliExit.AWS_ACCESS, CliExit.NOT_FOUND],
    exitDetails: {
      [CliExit.OK]: 'nothing in ALARM, no message in a dead-letter queue, the configuration as deployed',
      [CliExit.ATTENTION]:
        "an alarm in ALARM, a message in a dead-letter queue, or the stack's configuration drifted (each named with its runbook)",
      [CliExit.NOT_FOUND]: 'the stack, or the receiver in it',
    },
  },
  trace: {
    usage: 'trace <nossoNumero | idTransacao | endToEndId | refund id | subject id>',
    summary:
      "One subject: its verified state, its trail in time order, and its raw notifications in the journal (a Pix refund's own id is looked for in the journal's index).",
    options: {
      ...OPERATOR,
      kind: { type: 'string', value: 'pix|boleto|tributos', help: "a payment's kind", default: 'each in turn' },
    },
    examples: [
      'cdk-bank-webhooks trace 231004567 --stack Billing',
      'cdk-bank-webhooks trace 7d0b54d2a1 --kind pix --stack Billing',
    ],
    exits: [CliExit.OK, CliExit.ATTENTION, CliExit.USAGE, CliExit.AWS_ACCESS, CliExit.NOT_FOUND],
    exitDetails: { [CliExit.ATTENTION]: 'nothing known of the subject', [CliExit.NOT_FOUND]: 'the stack or receiver' },
  },
  'dlq list': {
    usage: 'dlq list',
    summary:
      'The messages of a dead-letter queue: age, subject, reason, message id and request id (read and given back, never taken).',
    options: { ...OPERATOR, ...DLQ_FILTERS },
    examples: [
      'cdk-bank-webhooks dlq list --stack Billing',
      'cdk-bank-webhooks dlq list --queue looks --reason "never knew" --stack Billing',
    ],
    exits: OPERATOR_EXITS,
    exitDetails: { [CliExit.NOT_FOUND]: 'the stack, the receiver in it, or its dead-letter queue' },
  },
  'dlq redrive': {
    usage: 'dlq redrive (--all | --reason TEXT | --subject ID)',
    summary:
      'Send dead-letter messages back to their queue (receive, send, delete): a change already published is not published again.',
    options: {
      ...OPERATOR,
      ...DLQ_FILTERS,
      all: { type: 'boolean', help: 'every message (redrive needs --all or a filter)' },
      'dry-run': { type: 'boolean', help: 'say what would be sent back, and send nothing' },
    },
    examples: [
      'cdk-bank-webhooks dlq redrive --reason "failed on its last receive" --dry-run --stack Billing',
      'cdk-bank-webhooks dlq redrive --all --stack Billing',
    ],
    exits: [...OPERATOR_EXITS, CliExit.FAILED],
    exitDetails: {
      [CliExit.NOT_FOUND]: 'the stack, the receiver in it, or its dead-letter queue',
      [CliExit.FAILED]: 'the redrive stopped part way: what was moved is printed',
    },
  },
  'dlq delete': {
    usage: 'dlq delete (--message-id ID | --reason TEXT | --subject ID)',
    summary:
      "Delete dead-letter messages you decided not to redrive: each is first recorded, create-only, under the journal's deletions/ (message id, request id, subjects, reason, who, when); one whose record fails stays.",
    options: {
      ...OPERATOR,
      ...DLQ_FILTERS,
      'message-id': { type: 'string', value: 'ID', help: 'only the message of this id (dlq list shows it)' },
      'dry-run': { type: 'boolean', help: 'say what would be recorded and deleted, and do neither' },
    },
    examples: [
      'cdk-bank-webhooks dlq delete --message-id 7a0c1f2e-... --dry-run --stack Billing',
      'cdk-bank-webhooks dlq delete --queue looks --reason "never knew" --stack Billing',
    ],
    exits: [...OPERATOR_EXITS, CliExit.FAILED],
    exitDetails: {
      [CliExit.NOT_FOUND]:
        'the stack, the receiver in it, its dead-letter queue, or its journal (where deletions are recorded)',
      [CliExit.FAILED]: 'some messages were not recorded (so not deleted) or not deleted: each is named',
    },
  },
  reverify: {
    usage: 'reverify --from T --to T',
    summary:
      "Ask the bank again about every subject the journal's notifications of the window named (7 days at most, within the records' lifetime), through the looks' share of the query budget.",
    options: {
      ...OPERATOR,
      ...WINDOW,
      'dry-run': { type: 'boolean', help: 'list the subjects, and request nothing' },
      'past-records': {
        type: 'boolean',
        help: "take a window older than the records' lifetime: what it finds is published as replays (trigger replay)",
      },
    },
    examples: [
      'cdk-bank-webhooks reverify --from 2026-11-25 --to 2026-11-25 --dry-run --stack Billing',
      'cdk-bank-webhooks reverify --from 2026-11-25T14:00:00Z --to 2026-11-25T16:00:00Z --stack Billing',
    ],
    exits: [...OPERATOR_EXITS, CliExit.ATTENTION, CliExit.FAILED],
    exitDetails: {
      [CliExit.ATTENTION]: 'some subjects could not be asked for (each named)',
      [CliExit.FAILED]: 'the reverify stopped part way: what was sent is printed',
    },
  },
  replay: {
    usage: 'replay --from T --to T --rule NAME',
    summary:
      "Replay the bus archive's events of the window to one rule (30 days at most; a --to later than now ends now).",
    options: {
      ...OPERATOR,
      ...WINDOW,
      rule: {
        type: 'string',
        value: 'NAME',
        help: 'the one rule to replay to (never every rule: the healthy consumers would get their events twice)',
        default: 'required',
      },
      wait: { type: 'boolean', help: 'wait for the replay to end, and exit 5 unless it completed' },
    },
    examples: [
      'cdk-bank-webhooks replay --from 2026-11-25 --to 2026-11-26 --rule Billing-PayablesRule --stack Billing',
      'cdk-bank-webhooks replay --from 2026-11-25T14:00:00Z --to 2026-11-25T15:00:00Z --rule Billing-PayablesRule --wait --stack Billing',
    ],
    exits: [...OPERATOR_EXITS, CliExit.FAILED],
    exitDetails: {
      [CliExit.NOT_FOUND]: 'the stack, the receiver, the rule or the archive',
      [CliExit.FAILED]: 'the replay did not complete (its state and reason are printed)',
    },
  },
  logs: {
    usage: 'logs <receiver | processor | sweep | access>',
    summary:
      "A receiver's log over a window, oldest first: a function's (the receiver, the processor, the sweep) or the REST API's access log, by the log group its manifest names.",
    options: {
      ...OPERATOR,
      from: { ...WINDOW.from, default: 'an hour before --to' },
      to: { ...WINDOW.to, default: 'now' },
      filter: {
        type: 'string',
        value: 'PATTERN',
        help: 'a CloudWatch Logs filter pattern: words all present, "a phrase", ?either ?or, { $.status = "401" }',
        default: 'every event',
      },
      limit: { type: 'string', value: 'N', help: 'most events printed (1 to 10000)', default: '200' },
    },
    examples: [
      'cdk-bank-webhooks logs processor --filter \'"8f1c2d3e-message-id"\' --stack Billing',
      'cdk-bank-webhooks logs access --from 2026-11-25T14:00:00Z --filter \'{ $.status = "401" }\' --stack Billing',
    ],
    exits: [...OPERATOR_EXITS, CliExit.ATTENTION],
    exitDetails: {
      [CliExit.ATTENTION]: 'no event in the window matched',
      [CliExit.NOT_FOUND]: 'the stack, the receiver, or the log group',
    },
  },
  audit: {
    usage: 'audit --from T --to T',
    summary:
      "Check the promise over the window (7 days at most, within the records' lifetime): every notification the journal holds published once, not confirmed, quarantined with its reason or still pending; every event in the audit log recorded by the processor, none twice. Changes nothing.",
    options: { ...OPERATOR, ...WINDOW },
    examples: [
      'cdk-bank-webhooks audit --from 2026-11-25 --to 2026-11-25 --stack Billing',
      'cdk-bank-webhooks audit --from 2026-11-25T14:00:00Z --to 2026-11-25T16:00:00Z --stack Billing',
    ],
    exits: [...OPERATOR_EXITS, CliExit.ATTENTION],
    exitDetails: {
      [CliExit.ATTENTION]: 'a change lost, published twice or unverified (each named)',
      [CliExit.NOT_FOUND]: 'the stack, the receiver, or its audit log',
    },
  },
  sweep: {
    usage: 'sweep',
    summary: 'Run the reconciliation sweep and registration watch now, and print what they found.',
    options: OPERATOR,
    examples: ['cdk-bank-webhooks sweep --stack Billing', 'cdk-bank-webhooks sweep --stack Billing --profile operator'],
    exits: [CliExit.OK, CliExit.ATTENTION, CliExit.USAGE, CliExit.AWS_ACCESS, CliExit.NOT_FOUND, CliExit.FAILED],
    exitDetails: {
      [CliExit.ATTENTION]: 'the sweep could not read everything (the next one resumes)',
      [CliExit.NOT_FOUND]: 'the stack, the receiver, or its sweep',
      [CliExit.FAILED]: 'the sweep failed (its error is printed)',
    },
  },
  sandbox: {
    usage: 'sandbox <METHOD> <path> [JSON]',
    summary: "One call of a deployed BankSandbox's control API (Lambda Invoke, with your AWS credentials).",
    options: {
      function: {
        type: 'string',
        value: 'NAME',
        help: "the sandbox's function (the staging pair's SandboxFunctionName output)",
        default: 'required',
      },
      region: OPERATOR.region,
      profile: OPERATOR.profile,
    },
    examples: [
      'cdk-bank-webhooks sandbox POST /boletos \'{"valor": "10.00"}\' --function NAME',
      'cdk-bank-webhooks sandbox POST /boletos/001000001/settle --function NAME',
    ],
    exits: [CliExit.OK, CliExit.ATTENTION, CliExit.USAGE, CliExit.AWS_ACCESS],
    exitDetails: { [CliExit.ATTENTION]: 'the sandbox answered an error (printed)' },
  },
};
