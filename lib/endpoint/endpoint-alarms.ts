/** The endpoint's own alarms: refused tokens, and a route gone silent. */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { ReceiverMetric, ROUTES } from '../../contracts/receiver';
import { Runbook, thresholdAlarm } from '../core/alarms';
import { DEFAULT_SILENCE_HOURS } from './bank-webhook-endpoint-props';

/** One of the receiver's metrics on a route (the endpoint's `metricReceiver`). */
export type ReceiverMetricOf = (
  metricName: string,
  route: string,
  props?: cloudwatch.MetricOptions,
) => cloudwatch.Metric;

/**
 * In ALARM when most requests of the bank's routes were refused with 401 (at least 5 in 5 minutes):
 * after a token rotation or a wrong secret, every notification is refused and never resent.
 */
export function unauthorizedRequestsAlarm(scope: Construct, metric: ReceiverMetricOf): cloudwatch.Alarm {
  const metrics: Record<string, cloudwatch.IMetric> = {};
  ROUTES.forEach((route, i) => {
    metrics[`u${i}`] = metric(ReceiverMetric.UNAUTHORIZED, route);
    metrics[`s${i}`] = metric(ReceiverMetric.STORED, route);
  });
  const sum = (prefix: string) => ROUTES.map((_, i) => `FILL(${prefix}${i}, 0)`).join(' + ');
  const alarm = thresholdAlarm(scope, 'UnauthorizedRequestsAlarm', {
    runbook: Runbook.UNAUTHORIZED_REQUESTS,
    description:
      'Most requests to the bank webhook endpoint were refused with 401 (wrong or missing token). After a token rotation or a wrong secret, every notification is refused and the bank marks it NÃO ENTREGUE, never to resend: check the token secrets against what is registered at the bank (tokenVersion), and run the reconciliation.',
    metric: new cloudwatch.MathExpression({
      expression: `IF((${sum('u')}) >= 5, (${sum('u')}) / ((${sum('u')}) + (${sum('s')})), 0)`,
      usingMetrics: metrics,
      period: Duration.minutes(5),
      label: 'Share of requests refused with 401 (when at least 5 were)',
    }),
    threshold: 0.5,
  });
  return alarm;
}

/** In ALARM when not one notification was stored on `route` in any hour of the window (no data counts as none). */
export function silenceAlarm(
  scope: Construct,
  id: string,
  route: string,
  window: Duration | undefined,
  metric: ReceiverMetricOf,
): cloudwatch.Alarm | undefined {
  const hours = window?.toHours() ?? DEFAULT_SILENCE_HOURS;
  if (hours === 0) return undefined;
  return thresholdAlarm(scope, id, {
    runbook: Runbook.SILENCE,
    description: `No notification was stored on /${route} for ${hours} hours: the bank may have stopped sending. Check the registration watch (RegistrationDrift alarm; the ${route === 'boleto' ? "contract's status" : 'payment callback'} at the bank), the bank's status, and the endpoint (UnauthorizedRequests, API Gateway 4XX/5XX).`,
    metric: metric(ReceiverMetric.STORED, route, { period: Duration.hours(1), statistic: cloudwatch.Stats.SUM }),
    threshold: 1,
    evaluationPeriods: hours,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.BREACHING,
  });
}
