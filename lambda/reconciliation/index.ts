import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SSMClient } from '@aws-sdk/client-ssm';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { ProcessorMetric } from '../../contracts/processor';
import { METRICS_NAMESPACE } from '../../contracts/receiver';
import {
  type ConfigurationWatchReport,
  ConfigurationWatchState,
  RECONCILIATION_SERVICE_NAME,
  SweepMetric,
  type SweepResult,
  type WatchFinding,
} from '../../contracts/reconciliation';
import { bindFamilies, followedSubject, readAccountConnection } from '../bank/families';
import { DynamoDbDayCursors } from '../store/day-cursors';
import { DynamoDbLookMarkers } from '../store/look-markers';
import { DynamoDbPendingPayments } from '../store/pending-payments';
import { sharedBankPacer } from '../store/slot-schedule';
import { DynamoDbSubjectStore } from '../store/subject-store';
import { metricCounter, MetricUnit } from '../shared/metrics';
import { sleep } from '../shared/retry';
import { createLogger } from '../shared/logger';
import { AWS_CLIENT_CONFIG, errorMessage } from '../shared/runtime';
import { loadAcceptedTokens, loadTokenVersion } from '../shared/secret-tokens';
import { SsmAppliedRegistrations } from '../store/applied-registrations';
import { DynamoDbWatchStates } from '../store/watch-states';
import { DynamoDbSweepRuns } from '../store/sweep-runs';
import { configurationWatchCalls, describeStack, lookRequestSender } from './aws';
import { watchConfiguration } from './configuration-watch';
import { readSweepSettings } from './settings';
import { recentDays, rotatingDays, sweep, type SweptListing } from './sweep';
import { watchRegistrations } from './watch';

const logger = createLogger(RECONCILIATION_SERVICE_NAME);
const settings = readSweepSettings(process.env);
const counter = metricCounter({
  namespace: METRICS_NAMESPACE,
  serviceName: RECONCILIATION_SERVICE_NAME,
  receiverName: settings.receiverName,
});
const connection = readAccountConnection(process.env, 'ReconciliationSweep');
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
// Every family's client: the sweep lists what changed, the watch reads what the stack registered.
const families = bindFamilies({
  env: process.env,
  setBy: 'ReconciliationSweep',
  secretsManager,
  onThrottled: () => counter(ProcessorMetric.BANK_THROTTLED),
  onRetry: (message, info) => logger.warn(message, { ...info }),
});
const beneficiario = connection.account.codigoBeneficiario;
/** The listings each sweep reads (the settled boletos; with Pix, the Pix received and the refunds of older Pix), each with its cursors. */
const listings: SweptListing[] = families.listings(pacer, settings).map(({ listing, days }) => ({
  listing,
  cursors: new DynamoDbDayCursors(dynamo, table, beneficiario, days.lookbackDays, listing.name),
  daysBack: days.rotation
    ? rotatingDays(days.rotation.from, days.lookbackDays, days.rotation.perSweep, days.rotation.intervalMinutes)
    : recentDays(days.lookbackDays),
}));

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

/** One DescribeStacks an invocation, shared by both watches. */
let described: ReturnType<typeof describeStack> | undefined;
const describeOnce = (stackId: string) => (described ??= describeStack(cloudFormation, stackId));

function stackReader(stackId: string): {
  stackStatus: () => Promise<string>;
  stackOutput: (key: string) => Promise<string | undefined>;
} {
  const describe = () => describeOnce(stackId);
  return {
    stackStatus: async () => (await describe()).status,
    stackOutput: async (key) => (await describe()).outputs.get(key),
  };
}

async function watch(deadline: number): Promise<WatchFinding[]> {
  const w = settings.watch!;
  return watchRegistrations({
    settings: w,
    registrations: families.deployed(pacer),
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

/**
 * The configuration watch (drift detection of the stack's own security-relevant resources): its
 * report, with the drift count as a metric every sweep. A failed watch is logged and alarms as a
 * drift would (nothing was seen); it never fails the sweep.
 */
async function watchStackConfiguration(): Promise<ConfigurationWatchReport | undefined> {
  const c = settings.configuration;
  if (!c) return undefined;
  let previous: ConfigurationWatchReport | undefined;
  let report: ConfigurationWatchReport;
  try {
    previous = (await sweepRuns.read())?.result.configuration;
    report = await watchConfiguration(
      c,
      configurationWatchCalls(cloudFormation, c.stackId, () => describeOnce(c.stackId)),
      previous,
      Date.now(),
    );
  } catch (error) {
    logger.error("The configuration watch failed: the stack's own configuration was not checked", {
      reason: errorMessage(error),
    });
    report = {
      ...(previous ?? { state: ConfigurationWatchState.WAITING, findings: [] }),
      failed: true,
      reason: `the watch failed: ${errorMessage(error)}`,
    };
  }
  if (report.findings.length)
    logger.warn("The stack's own configuration drifted from its template", {
      findings: JSON.stringify(report.findings),
    });
  counter(SweepMetric.CONFIGURATION_DRIFT, {}, undefined, Math.max(report.findings.length, report.failed ? 1 : 0));
  return report;
}

export async function handler(event: ScheduledEvent, context: Context): Promise<SweepResult> {
  described = undefined;
  const deadline = Date.now() + context.getRemainingTimeInMillis() - settings.safetyMarginMs;
  // The schedule's time names the days to read (a sweep that starts late still reads its own day).
  const scheduledAt = Date.parse(event?.time ?? '');
  const report = await sweep(
    {
      settings,
      codigoBeneficiario: beneficiario,
      listings,
      readRecord: (subjectId) => store.read(subjectId),
      pendingPayments,
      followed: followedSubject,
      markers,
      send,
      count: (metric, value, milliseconds) =>
        counter(metric, {}, undefined, value, milliseconds ? MetricUnit.MILLISECONDS : MetricUnit.COUNT),
      logger,
    },
    deadline,
    Number.isFinite(scheduledAt) ? scheduledAt : undefined,
  );
  logger.info('Reconciliation sweep finished', { ...report, days: JSON.stringify(report.days) });
  const registrations = settings.watch ? await watch(deadline) : undefined;
  const configuration = await watchStackConfiguration();
  const result: SweepResult = {
    ...report,
    ...(registrations ? { registrations } : {}),
    ...(configuration ? { configuration } : {}),
  };
  await recordRun(result);
  return result;
}

/** Keeps what this sweep found for an operator's `status`; a record that cannot be written is logged, never a failed sweep. */
async function recordRun(result: SweepResult): Promise<void> {
  try {
    await sweepRuns.write({ at: Date.now(), result });
  } catch (error) {
    logger.warn("The sweep's result could not be kept for the operator's status", { reason: errorMessage(error) });
  }
}
