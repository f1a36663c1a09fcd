import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * Counts one occurrence of `name`, with `dimensions`, as its own embedded-metric-format line
 * (flushed at once, so a count is never lost to a later failure in the same invocation).
 */
export function metricCounter(metrics: Metrics): (name: string, dimensions?: Record<string, string>) => void {
  return (name, dimensions = {}) => {
    const single = metrics.singleMetric();
    for (const [key, value] of Object.entries(dimensions)) single.addDimension(key, value);
    single.addMetric(name, MetricUnit.Count, 1);
  };
}
