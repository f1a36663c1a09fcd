import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * Counts one occurrence of `name`, with `dimensions`, as its own embedded-metric-format line
 * (flushed at once, so a count is never lost to a later failure in the same invocation).
 * `details` go in the same line as searchable fields that are not dimensions: a count that is
 * also a log record (the receiver's "Notification stored") costs one line, not two.
 *
 * The count is added and published on the handler's one `Metrics` instance in a single
 * synchronous step: nothing can run in between, so counts made by concurrent records never mix
 * their dimensions, and no instance is built per count (`singleMetric()` builds a `Metrics` and a
 * `Console` each time, which cost the receiver more CPU than its SendMessage; see the README's
 * Performance section).
 */
export function metricCounter(metrics: Metrics): (name: string, dimensions?: Record<string, string>, details?: Record<string, string>) => void {
  return (name, dimensions = {}, details = {}) => {
    for (const [key, value] of Object.entries(dimensions)) metrics.addDimension(key, value);
    for (const [key, value] of Object.entries(details)) metrics.addMetadata(key, value);
    metrics.addMetric(name, MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  };
}
