import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SSMClient } from '@aws-sdk/client-ssm';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { ProcessorMetric } from '../../contracts/processor';
import { PixConnectionDefaults } from '../../contracts/pix-connection';
import { METRICS_NAMESPACE } from '../../contracts/receiver';
import { RECONCILIATION_SERVICE_NAME, SWEEP_SETTINGS_ENV, type SweepResult, type WatchFinding } from '../../contracts/reconciliation';
import { BankClient, cooperativeRegistrations, credentialsFromSecret, readBankConnection, settledBoletoListing } from '../bank/cooperative';
import { combinedRegistrations } from '../bank/family';
import { PixClient, pixCredentialsFromSecret, pixDayListing, pixRefundListing, pixRegistrations, readPixConnection } from '../bank/pix';
import { DynamoDbDayCursors } from '../store/day-cursors';
import { DynamoDbLookMarkers } from '../store/look-markers';
import { DynamoDbPendingPayments } from '../store/pending-payments';
import { sharedBankPacer } from '../store/slot-schedule';
import { DynamoDbSubjectStore } from '../store/subject-store';
import { metricCounter, MetricUnit } from '../shared/metrics';
import { sleep } from '../shared/retry';
import { AWS_CLIENT_CONFIG, createLogger, errorMessage } from '../shared/runtime';
import { loadAcceptedTokens, loadTokenVersion } from '../shared/secret-tokens';
import { SsmAppliedRegistrations } from '../store/applied-registrations';
import { DynamoDbWatchStates } from '../store/watch-states';
import { DynamoDbSweepRuns } from '../store/sweep-runs';
import { describeStack, lookRequestSender } from './aws';
import { readSweepSettings } from './settings';
import { recentDays, rotatingDays, sweep, type SweptListing } from './sweep';
import { watchRegistrations } from './watch';

const logger = createLogger(RECONCILIATION_SERVICE_NAME);
const settings = readSweepSettings(process.env);
const counter = metricCounter({ namespace: METRICS_NAMESPACE, serviceName: RECONCILIATION_SERVICE_NAME, receiverName: settings.receiverName });
const connection = readBankConnection(process.env, 'ReconciliationSweep');
const dynamo = new DynamoDBClient(AWS_CLIENT_CONFIG);
const table = settings.idempotencyTableName;
const store = new DynamoDbSubjectStore(dynamo, table, 0);
const pendingPayments = new DynamoDbPendingPayments(dynamo, table);
const markers = new DynamoDbLookMarkers(dynamo, table);
const send = lookRequestSender(new SQSClient(AWS_CLIENT_CONFIG), settings.queueUrl);
const secretsManager = new SecretsManagerClient(AWS_CLIENT_CONFIG);
const records = new SsmAppliedRegistrations(new SSMClient(AWS_CLIENT_CONFIG));
const watchStates = new DynamoDbWatchStates(dynamo, table);
const sweepRuns = new DynamoDbSweepRuns(dynamo, table);
const cloudFormation = new CloudFormationClient(AWS_CLIENT_CONFIG);
// The sweep's listings (the bank's and the Pix API's) take their slots from the processor's schedule: one rate for all.
const pacer = sharedBankPacer(dynamo, table, connection);
const bank = new BankClient({
  settings: connection,
  pacer,
  onThrottled: () => counter(ProcessorMetric.BANK_THROTTLED),
  credentials: credentialsFromSecret(secretsManager, connection.credentialsSecretArn),
  onRetry: (info) => logger.warn('Retrying a bank call', { ...info }),
});
// The Pix API, when the receiver has Pix: the sweep lists the Pix received, the watch reads each key's webhook.
const pixConnection = readPixConnection(process.env, 'ReconciliationSweep');
const pix = pixConnection && {
  connection: pixConnection,
  client: new PixClient({
    settings: pixConnection,
    credentials: pixCredentialsFromSecret(secretsManager, pixConnection.credentialsSecretArn),
    pacer,
    onRetry: (info) => logger.warn('Retrying a Pix API call', { ...info }),
  }),
};
const beneficiario = connection.account.codigoBeneficiario;
const cursorsOf = (listing: string, lookbackDays: number) => new DynamoDbDayCursors(dynamo, table, beneficiario, lookbackDays, listing);
/** The listings each sweep reads: the settled boletos; with Pix, the Pix received and the refunds of older Pix. */
const listings: SweptListing[] = [
  { listing: settledBoletoListing(bank, beneficiario, connection.listingPageSize), cursors: cursorsOf('boleto', settings.lookbackDays), daysBack: recentDays(settings.lookbackDays) },
];
if (settings.pix) {
  if (!pix) throw new Error(`${SWEEP_SETTINGS_ENV} asks for the Pix sweep but the function has no Pix connection (set by ReconciliationSweep from its processor's pix)`);
  const p = settings.pix;
  const options = { keyHashes: p.keyHashes, publishWithoutTxid: p.publishWithoutTxid, pageSize: PixConnectionDefaults.listingPageSize };
  listings.push(
    { listing: pixDayListing(pix.client, options), cursors: cursorsOf('pix', settings.lookbackDays), daysBack: recentDays(settings.lookbackDays) },
    { listing: pixRefundListing(pix.client, options), cursors: cursorsOf('pix-refund', p.refundLookbackDays), daysBack: rotatingDays(settings.lookbackDays + 1, p.refundLookbackDays, p.refundDaysPerSweep, p.intervalMinutes) },
  );
}

/** Values of token versions read so far: a version's value never changes. */
const versionValues = new Map<string, string>();

async function tokenVersionValue(secretArn: string, versionId: string): Promise<string | undefined> {
  const key = `${secretArn}#${versionId}`;
  const known = versionValues.get(key);
  if (known !== undefined) return known;
  const version = await loadTokenVersion(secretsManager, secretArn, { versionId }, 10_000);
  if (version) versionValues.set(key, version.value);
  return version?.value;
}

function stackReader(stackId: string): { stackStatus: () => Promise<string>; stackOutput: (key: string) => Promise<string | undefined> } {
  let described: ReturnType<typeof describeStack> | undefined;
  const describe = () => (described ??= describeStack(cloudFormation, stackId));
  return { stackStatus: async () => (await describe()).status, stackOutput: async (key) => (await describe()).outputs.get(key) };
}

async function watch(deadline: number): Promise<WatchFinding[]> {
  const w = settings.watch!;
  return watchRegistrations({
    settings: w,
    registrations: combinedRegistrations(cooperativeRegistrations(() => bank, connection), ...(pix ? [pixRegistrations(() => pix.client, pix.connection)] : [])),
    steps: {
      deadline,
      // The watch gives the repair the token version the deploy recorded; nothing else is registered.
      tokenValue: () => Promise.reject(new Error('The watch registers only the recorded token version')),
      log: logger,
      sleep,
    },
    readRecord: (name) => records.read(name),
    tokens: { version: tokenVersionValue, accepted: (arn) => loadAcceptedTokens(secretsManager, arn, 10_000) },
    states: watchStates,
    // One DescribeStacks a watch: the status, and the output holding the Pix keys the stack deployed.
    ...stackReader(w.stackId),
    count: (metric, details) => counter(metric, {}, details),
  });
}

export async function handler(event: ScheduledEvent, context: Context): Promise<SweepResult> {
  const deadline = Date.now() + context.getRemainingTimeInMillis() - settings.safetyMarginMs;
  // The schedule's time names the days to read (a sweep that starts late still reads its own day).
  const scheduledAt = Date.parse(event?.time ?? '');
  const report = await sweep({
    settings,
    codigoBeneficiario: beneficiario,
    listings,
    readRecord: (subjectId) => store.read(subjectId),
    pendingPayments,
    markers,
    send,
    count: (metric, value, milliseconds) => counter(metric, {}, undefined, value, milliseconds ? MetricUnit.MILLISECONDS : MetricUnit.COUNT),
    logger,
  }, deadline, Number.isFinite(scheduledAt) ? scheduledAt : undefined);
  logger.info('Reconciliation sweep finished', { ...report, days: JSON.stringify(report.days) });
  const result: SweepResult = settings.watch ? { ...report, registrations: await watch(deadline) } : report;
  await recordRun(result);
  return result;
}

/** Keeps what this sweep found for an operator's `status`; a record that cannot be written is logged, never a failed sweep. */
async function recordRun(result: SweepResult): Promise<void> {
  try {
    await sweepRuns.write({ at: Date.now(), result });
  } catch (error) {
    logger.warn('The sweep\'s result could not be kept for the operator\'s status', { reason: errorMessage(error) });
  }
}
