import { evaluateAlarm, LocalAlarmState, metricDatapoints } from '../../../tools/local-runner/alarms';
import { rateMs, type AlarmDescription } from '../../../tools/local-runner/template';
import { metricCounter, MetricUnit } from '../../../lambda/shared/metrics';

const alarm = (overrides: Partial<AlarmDescription> = {}): AlarmDescription => ({
  logicalId: 'RecoveredAlarm',
  metric: {
    namespace: 'CdkBankWebhooks',
    name: 'NotificationsRecovered',
    dimensions: { service: 'bank-webhook-processor', receiver: 'A' },
  },
  statistic: 'Sum',
  periodSeconds: 900,
  evaluationPeriods: 1,
  threshold: 1,
  comparison: 'GreaterThanOrEqualToThreshold',
  ...overrides,
});

function linesOf(...counts: Array<[string, Record<string, string>, number?]>): string[] {
  const lines: string[] = [];
  const count = metricCounter({
    namespace: 'CdkBankWebhooks',
    serviceName: 'bank-webhook-processor',
    receiverName: 'A',
    write: (line) => lines.push(line),
  });
  for (const [name, dimensions, value] of counts) count(name, dimensions, {}, value, MetricUnit.COUNT);
  return lines;
}

it('reads the datapoints of the lines the functions print, with their dimensions and values', () => {
  const [line] = linesOf(['SweepBankCalls', {}, 4]);
  expect(metricDatapoints(line)).toEqual([
    {
      namespace: 'CdkBankWebhooks',
      name: 'SweepBankCalls',
      dimensions: { service: 'bank-webhook-processor', receiver: 'A' },
      value: 4,
      timestamp: expect.any(Number),
    },
  ]);
  expect(metricDatapoints('{"level":"INFO","message":"not a metric"}')).toEqual([]);
  expect(metricDatapoints('{"_aws": broken')).toEqual([]);
});

it('is in ALARM when the metric breaches in the evaluated period, with exactly its dimensions, and OK otherwise', () => {
  const points = linesOf(['NotificationsRecovered', {}]).flatMap(metricDatapoints);
  // The evaluation's clock is the datapoint's own instant (the clock read before it could be a millisecond behind).
  const now = points[0].timestamp;
  expect(evaluateAlarm(alarm(), points, now)).toBe(LocalAlarmState.ALARM);
  // A period later it is over; other dimensions are another metric; missing data does not breach.
  expect(evaluateAlarm(alarm(), points, now + 901_000)).toBe(LocalAlarmState.OK);
  expect(
    evaluateAlarm(
      alarm(),
      linesOf(['NotificationsRecovered', { DetailType: 'Boleto Settled' }]).flatMap(metricDatapoints),
      now,
    ),
  ).toBe(LocalAlarmState.OK);
  expect(evaluateAlarm(alarm(), [], now)).toBe(LocalAlarmState.OK);
  // Two periods to alarm: both must breach.
  expect(evaluateAlarm(alarm({ evaluationPeriods: 2 }), points, now)).toBe(LocalAlarmState.OK);
  expect(
    evaluateAlarm(
      alarm({ evaluationPeriods: 2 }),
      [...points, ...points.map((p) => ({ ...p, timestamp: p.timestamp - 900_000 }))],
      now,
    ),
  ).toBe(LocalAlarmState.ALARM);
});

it("does not evaluate an alarm on an AWS service's own metric or on metric math", () => {
  expect(
    evaluateAlarm(
      alarm({
        metric: { namespace: 'AWS/SQS', name: 'ApproximateAgeOfOldestMessage', dimensions: { QueueName: 'q' } },
      }),
      [],
      Date.now(),
    ),
  ).toBe(LocalAlarmState.NOT_EVALUATED);
  expect(evaluateAlarm(alarm({ metric: undefined }), [], Date.now())).toBe(LocalAlarmState.NOT_EVALUATED);
});

it('reads EventBridge rate schedules, and refuses what it cannot run', () => {
  expect(rateMs('rate(15 minutes)')).toBe(900_000);
  expect(rateMs('rate(1 hour)')).toBe(3_600_000);
  expect(rateMs('rate(2 days)')).toBe(172_800_000);
  expect(() => rateMs('cron(0 12 * * ? *)')).toThrow(
    'The local runner reads rate(...) schedules only, not "cron(0 12 * * ? *)"',
  );
});
