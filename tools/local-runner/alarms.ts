/**
 * CloudWatch's part for the local runner: the metrics the functions print (embedded metric
 * format lines) become datapoints, and the template's alarms are evaluated over them as
 * CloudWatch would: each of the last `evaluationPeriods` periods is aggregated with the alarm's
 * statistic, a period with no data does not breach (the library's alarms treat missing data as
 * not breaching), and the alarm is in ALARM when every evaluated period breaches.
 */
import type { AlarmDescription } from './template';

export interface MetricDatapoint {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly value: number;
  /** Epoch ms. */
  readonly timestamp: number;
}

export enum LocalAlarmState {
  OK = 'OK',
  ALARM = 'ALARM',
  /** On a metric the local runner does not have (an AWS service's own, or metric math). */
  NOT_EVALUATED = 'NOT_EVALUATED',
}

/** The datapoints of one embedded-metric-format line (none when the line is not one). */
export function metricDatapoints(line: string): MetricDatapoint[] {
  if (!line.startsWith('{') || !line.includes('"_aws"')) return [];
  let parsed: Record<string, unknown> & {
    _aws?: {
      Timestamp?: number;
      CloudWatchMetrics?: Array<{ Namespace?: string; Dimensions?: string[][]; Metrics?: Array<{ Name: string }> }>;
    };
  };
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    return [];
  }
  const timestamp = typeof parsed._aws?.Timestamp === 'number' ? parsed._aws.Timestamp : Date.now();
  const points: MetricDatapoint[] = [];
  for (const directive of parsed._aws?.CloudWatchMetrics ?? []) {
    for (const dimensionSet of directive.Dimensions ?? [[]]) {
      const dimensions = Object.fromEntries(dimensionSet.map((name) => [name, String(parsed[name])]));
      for (const { Name } of directive.Metrics ?? []) {
        const raw = parsed[Name];
        for (const value of Array.isArray(raw) ? raw : [raw]) {
          if (typeof value === 'number')
            points.push({ namespace: directive.Namespace ?? '', name: Name, dimensions, value, timestamp });
        }
      }
    }
  }
  return points;
}

const COMPARE: Record<string, (value: number, threshold: number) => boolean> = {
  GreaterThanOrEqualToThreshold: (v, t) => v >= t,
  GreaterThanThreshold: (v, t) => v > t,
  LessThanThreshold: (v, t) => v < t,
  LessThanOrEqualToThreshold: (v, t) => v <= t,
};

function aggregate(values: readonly number[], statistic: string): number {
  switch (statistic) {
    case 'Sum':
      return values.reduce((a, b) => a + b, 0);
    case 'Maximum':
      return Math.max(...values);
    case 'Minimum':
      return Math.min(...values);
    case 'Average':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'SampleCount':
      return values.length;
    default:
      throw new Error(`The local runner does not evaluate the statistic ${statistic}`);
  }
}

/** The alarm's state at `now` over `datapoints` (CloudWatch matches a metric's dimension set exactly). */
export function evaluateAlarm(
  alarm: AlarmDescription,
  datapoints: readonly MetricDatapoint[],
  now: number,
): LocalAlarmState {
  const metric = alarm.metric;
  const compare = COMPARE[alarm.comparison];
  if (!metric || !compare || Object.values(metric.dimensions).some((value) => typeof value !== 'string'))
    return LocalAlarmState.NOT_EVALUATED;
  const wanted = Object.entries(metric.dimensions as Record<string, string>);
  const mine = datapoints.filter(
    (p) =>
      p.namespace === metric.namespace &&
      p.name === metric.name &&
      Object.keys(p.dimensions).length === wanted.length &&
      wanted.every(([name, value]) => p.dimensions[name] === value),
  );
  if (!mine.length && metric.namespace.startsWith('AWS/')) return LocalAlarmState.NOT_EVALUATED;
  const periodMs = alarm.periodSeconds * 1000;
  for (let k = 0; k < alarm.evaluationPeriods; k++) {
    const end = now - k * periodMs;
    const values = mine.filter((p) => p.timestamp > end - periodMs && p.timestamp <= end).map((p) => p.value);
    if (!values.length || !compare(aggregate(values, alarm.statistic), alarm.threshold)) return LocalAlarmState.OK;
  }
  return LocalAlarmState.ALARM;
}
