/**
 * `cdk-bank-webhooks status`: what an operator looks at first. Alarms in ALARM, each queue's
 * depth and its oldest message's age, the registrations as the watch last saw them, and the
 * notifications stored in the last day.
 */
import { DescribeAlarmsCommand, GetMetricDataCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { consumerAlarmPrefix, type OperatorManifest } from '../../contracts/operations';
import { CONFIGURATION_DRIFT_RUNBOOK, type ConfigurationWatchReport } from '../../contracts/configuration-drift';
import { DynamoDbWatchStates, type WatchStateRecord } from '../../lambda/store/watch-states';
import { DynamoDbSweepRuns, type SweepRunRecord } from '../../lambda/store/sweep-runs';
import { formatTable, humanDuration, printable } from '../table';
import type { AwsClients } from './aws';
import { DAY_MS, journalKeysBetween } from './journal';

export interface QueueStatus {
  readonly name: string;
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
  /** Age of the oldest message (CloudWatch's ApproximateAgeOfOldestMessage, last 5 minutes), when CloudWatch has it. */
  readonly oldestSeconds?: number;
  readonly deadLetter: boolean;
}

export interface ReceiverStatus {
  readonly manifest: OperatorManifest;
  readonly alarms: readonly {
    readonly name: string;
    readonly state: string;
    readonly since?: Date;
    readonly runbook?: string;
  }[];
  /** Alarm names the manifest lists that CloudWatch does not know (deleted by hand). */
  readonly missingAlarms: readonly string[];
  readonly queues: readonly QueueStatus[];
  readonly registrations: readonly { readonly label: string; readonly state?: WatchStateRecord }[];
  /** The reconciliation sweep's last run (none: the receiver has no sweep, or it has not run since it keeps one). */
  readonly lastSweep?: SweepRunRecord;
  /** Notifications stored in the last 24 hours, and where the count comes from. */
  readonly storedLastDay?: { readonly count: number; readonly from: string };
  /** Whether something needs the operator: an alarm in ALARM, or a message in a dead-letter queue. */
  readonly attention: boolean;
}

/**
 * The manifest's alarms, and the dead-letter queue alarms of the receiver's consumers in any stack
 * (named under `consumerAlarmPrefix`: a consumer's stack depends on the receiver's, never the reverse).
 */
async function alarmStates(
  aws: AwsClients,
  manifest: OperatorManifest,
): Promise<{ alarms: ReceiverStatus['alarms']; missing: string[] }> {
  const found: MetricAlarm[] = [];
  const names = [...manifest.alarms];
  for (let i = 0; i < names.length; i += 100) {
    const answer = await aws.cloudWatch.send(
      new DescribeAlarmsCommand({ AlarmNames: names.slice(i, i + 100), MaxRecords: 100 }),
    );
    found.push(...(answer.MetricAlarms ?? []));
  }
  let nextToken: string | undefined;
  do {
    const answer = await aws.cloudWatch.send(
      new DescribeAlarmsCommand({
        AlarmNamePrefix: consumerAlarmPrefix(manifest.receiverName),
        MaxRecords: 100,
        NextToken: nextToken,
      }),
    );
    for (const alarm of answer.MetricAlarms ?? []) {
      if (!names.includes(alarm.AlarmName!)) {
        names.push(alarm.AlarmName!);
        found.push(alarm);
      }
    }
    nextToken = answer.NextToken;
  } while (nextToken);
  const byName = new Map(found.map((alarm) => [alarm.AlarmName!, alarm]));
  return {
    alarms: names
      .filter((name) => byName.has(name))
      .map((name) => {
        const alarm = byName.get(name)!;
        return {
          name,
          state: alarm.StateValue ?? 'UNKNOWN',
          since: alarm.StateUpdatedTimestamp,
          runbook: /Runbook: (\S+)$/.exec(alarm.AlarmDescription ?? '')?.[1],
        };
      }),
    missing: names.filter((name) => !byName.has(name)),
  };
}

/** The oldest message's age of each queue, by name, from CloudWatch (absent where it has no datapoint). */
async function oldestAges(aws: AwsClients, queueNames: readonly string[], now: number): Promise<Map<string, number>> {
  const answer = await aws.cloudWatch.send(
    new GetMetricDataCommand({
      StartTime: new Date(now - 10 * 60_000),
      EndTime: new Date(now),
      MetricDataQueries: queueNames.map((name, i) => ({
        Id: `q${i}`,
        ReturnData: true,
        MetricStat: {
          Metric: {
            Namespace: 'AWS/SQS',
            MetricName: 'ApproximateAgeOfOldestMessage',
            Dimensions: [{ Name: 'QueueName', Value: name }],
          },
          Period: 60,
          Stat: 'Maximum',
        },
      })),
    }),
  );
  const ages = new Map<string, number>();
  for (const result of answer.MetricDataResults ?? []) {
    const value = result.Values?.[0];
    if (value !== undefined) ages.set(queueNames[Number(result.Id!.slice(1))], value);
  }
  return ages;
}

/** The page of the runbooks, by its path in the package (as every alarm's description names it). */
const RUNBOOKS_PAGE = 'cdk-bank-webhooks/docs/operations.md';

const queueNameOf = (url: string) => url.split('/').pop() ?? url;

export async function receiverStatus(
  aws: AwsClients,
  manifest: OperatorManifest,
  now = Date.now(),
): Promise<ReceiverStatus> {
  const { alarms, missing } = await alarmStates(aws, manifest);
  const queues: [string, string, boolean][] = [
    ['notifications', manifest.queues.notifications.url, false],
    ['notifications dead-letter', manifest.queues.notificationsDeadLetter.url, true],
    ['looks', manifest.queues.looks.url, false],
    ['looks dead-letter', manifest.queues.looksDeadLetter.url, true],
    ...(manifest.auditLog
      ? [['audit dead-letter', manifest.auditLog.deadLetterQueue.url, true] as [string, string, boolean]]
      : []),
  ];
  const ages = await oldestAges(
    aws,
    queues.map(([, url]) => queueNameOf(url)),
    now,
  );
  const queueStatus = await Promise.all(
    queues.map(async ([name, url, deadLetter]): Promise<QueueStatus> => {
      const { Attributes: a = {} } = await aws.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      );
      const age = ages.get(queueNameOf(url));
      return {
        name,
        deadLetter,
        visible: Number(a.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? 0),
        delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? 0),
        ...(age !== undefined ? { oldestSeconds: age } : {}),
      };
    }),
  );
  const watchStates = new DynamoDbWatchStates(aws.dynamo, manifest.table);
  const registrations = await Promise.all(
    manifest.registrations.map(async (r) => ({ label: r.label, state: await watchStates.read(r.record) })),
  );
  const lastSweep = manifest.functions.sweep
    ? await new DynamoDbSweepRuns(aws.dynamo, manifest.table).read()
    : undefined;
  const storedLastDay = manifest.journalBucket
    ? {
        count: (await journalKeysBetween(aws, manifest.journalBucket, now - DAY_MS, now)).length,
        from: `the journal, s3://${manifest.journalBucket}/`,
      }
    : undefined;
  // Something needs attention exactly when it has a runbook to follow.
  const attention = attentionRunbooks(alarms, queueStatus, lastSweep?.result.configuration).length > 0;
  return {
    manifest,
    alarms,
    missingAlarms: missing,
    queues: queueStatus,
    registrations,
    ...(lastSweep ? { lastSweep } : {}),
    storedLastDay,
    attention,
  };
}

export function formatStatus(s: ReceiverStatus, now = Date.now()): string {
  const m = s.manifest;
  const inAlarm = s.alarms.filter((alarm) => alarm.state === 'ALARM');
  const lines = [
    `Receiver ${printable(m.receiverName)} (${printable(m.stage)}), beneficiário ${printable(m.codigoBeneficiario)}`,
    `Functions: ${Object.entries(m.functions)
      .map(([role, name]) => `${role} ${printable(name)}`)
      .join(', ')} (their logs: cdk-bank-webhooks logs <role>)`,
    '',
    `Alarms: ${inAlarm.length} of ${s.alarms.length} in ALARM${s.alarms.some((a) => a.state === 'INSUFFICIENT_DATA') ? `, ${s.alarms.filter((a) => a.state === 'INSUFFICIENT_DATA').length} with insufficient data` : ''}`,
  ];
  if (inAlarm.length) {
    lines.push(
      formatTable(
        ['alarm', 'since', 'runbook'],
        inAlarm.map((alarm) => [
          printable(alarm.name),
          alarm.since ? `${humanDuration(now - alarm.since.getTime())} ago` : '?',
          alarm.runbook ?? `${RUNBOOKS_PAGE}#runbooks`,
        ]),
      ),
    );
  }
  if (s.missingAlarms.length) lines.push(`Not found in CloudWatch (deleted?): ${s.missingAlarms.join(', ')}`);
  lines.push(
    '',
    formatTable(
      ['queue', 'visible', 'in flight', 'delayed', 'oldest'],
      s.queues.map((q) => [
        q.name,
        String(q.visible),
        String(q.inFlight),
        String(q.delayed),
        q.oldestSeconds === undefined ? 'n/a (no metric)' : humanDuration(q.oldestSeconds * 1000),
      ]),
    ),
  );
  lines.push('', lastSweepLine(s, now), ...configurationLines(s, now));
  if (s.registrations.length) {
    lines.push(
      '',
      formatTable(
        ['registration', 'watch state', 'drift', 'watched'],
        s.registrations.map((r) => [
          r.label,
          r.state?.state ?? 'not watched yet',
          r.state?.drift.join(', ') || '-',
          r.state ? `${humanDuration(now - r.state.watchedAt)} ago` : '-',
        ]),
      ),
    );
  } else {
    lines.push('', 'Registrations: none watched (the receiver registers nothing, or is NON_PRODUCTION).');
  }
  lines.push(
    '',
    s.storedLastDay
      ? `Notifications stored in the last 24 h: ${s.storedLastDay.count} (from ${s.storedLastDay.from})`
      : 'Notifications stored in the last 24 h: the journal is off; see NotificationsStored on the dashboard.',
  );
  const runbooks = attentionRunbooks(s.alarms, s.queues, s.lastSweep?.result.configuration);
  lines.push('', s.attention ? `Needs attention: ${runbooks.join(', ')}` : 'Nothing needs attention.');
  return lines.join('\n');
}

/** The runbook (docs/operations.md's section) of each dead-letter queue `status` shows, by its row's name. */
export const DEAD_LETTER_RUNBOOKS: Readonly<Record<string, string>> = {
  'notifications dead-letter': 'deadletterqueuealarm',
  'looks dead-letter': 'lookdeadletterqueuealarm',
  'audit dead-letter': 'auditdeadletterqueuealarm',
};

/** The runbook of each thing that needs attention: every alarm in ALARM, each dead-letter queue with messages, a drifted configuration. */
function attentionRunbooks(
  alarms: ReceiverStatus['alarms'],
  queues: ReceiverStatus['queues'],
  configuration: ConfigurationWatchReport | undefined,
): string[] {
  return [
    ...new Set([
      ...alarms.filter((a) => a.state === 'ALARM').map((a) => a.runbook ?? `${RUNBOOKS_PAGE}#runbooks`),
      ...queues
        .filter((q) => q.deadLetter && q.visible + q.inFlight + q.delayed > 0)
        .map((q) => `${RUNBOOKS_PAGE}#${DEAD_LETTER_RUNBOOKS[q.name] ?? 'runbooks'}`),
      ...(configuration?.failed || configuration?.findings.length
        ? [`${RUNBOOKS_PAGE}#${CONFIGURATION_DRIFT_RUNBOOK}`]
        : []),
    ]),
  ];
}

/** What the configuration watch last saw (drift detection of the stack's own security-relevant resources). */
function configurationLines(s: ReceiverStatus, now: number): string[] {
  const c = s.lastSweep?.result.configuration;
  if (!c) return [];
  const checked = c.checkedAt ? `checked ${humanDuration(Math.max(0, now - c.checkedAt))} ago` : 'not checked yet';
  const head = `Configuration (CloudFormation drift detection, ${c.state}, ${checked})`;
  const why = c.reason ? ` (${printable(c.reason)})` : '';
  if (!c.findings.length)
    return [
      c.failed
        ? `${head}: NOT WATCHED${why}. Runbook: ${RUNBOOKS_PAGE}#${CONFIGURATION_DRIFT_RUNBOOK}`
        : `${head}: the security-relevant resources match the template${why}.`,
    ];
  return [
    `${head}: ${c.findings.length} resource(s) differ from the template${why}. Runbook: ${RUNBOOKS_PAGE}#${CONFIGURATION_DRIFT_RUNBOOK}`,
    formatTable(
      ['resource', 'type', 'drift', 'properties'],
      c.findings.map((f) => [
        printable(f.logicalId),
        printable(f.type),
        printable(f.status),
        f.properties.map(printable).join(', ') || '-',
      ]),
    ),
  ];
}

/** The sweep's last run in a line. */
function lastSweepLine(s: ReceiverStatus, now: number): string {
  if (!s.manifest.functions.sweep)
    return 'Reconciliation sweep: none (NON_PRODUCTION, or reconciliation.enabled is false).';
  const run = s.lastSweep;
  if (!run) return 'Reconciliation sweep: no run recorded yet (cdk-bank-webhooks sweep runs one now).';
  const r = run.result;
  return (
    `Last sweep ${humanDuration(now - run.at)} ago: ${r.complete ? 'complete' : 'INCOMPLETE'}, ${r.bankCalls} listing call(s), ` +
    `${r.settlementsToVerify} listed change(s) and ${r.paymentsToVerify} payment(s) sent to be verified${r.paymentsGivenUp ? `, ${r.paymentsGivenUp} payment(s) given up` : ''}.`
  );
}
