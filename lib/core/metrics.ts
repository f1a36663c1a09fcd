import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE } from '../../contracts/receiver';

/**
 * A metric one of the library's functions emits (embedded metric format, namespace
 * METRICS_NAMESPACE, `service` dimension `service`): a 5-minute sum unless `props` says otherwise.
 */
export function libraryMetric(metricName: string, service: string, dimensions: Record<string, string> = {}, props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service, ...dimensions },
    statistic: cloudwatch.Stats.SUM,
    period: Duration.minutes(5),
    ...props,
  });
}
