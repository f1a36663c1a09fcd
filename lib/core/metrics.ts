import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, RECEIVER_DIMENSION, RECEIVER_NAME_PATTERN } from '../../contracts/receiver';
import { Duration, Names, Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PropsValidation } from './props-validation';

/**
 * A metric one of the library's functions emits (embedded metric format, namespace
 * METRICS_NAMESPACE, dimensions `service`, `receiver` and `dimensions`): a 5-minute sum unless
 * `props` says otherwise.
 */
export function libraryMetric(
  metricName: string,
  service: string,
  receiverName: string,
  dimensions: Record<string, string> = {},
  props: cloudwatch.MetricOptions = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service, [RECEIVER_DIMENSION]: receiverName, ...dimensions },
    statistic: cloudwatch.Stats.SUM,
    period: Duration.minutes(5),
    ...props,
  });
}

/**
 * The name a receiver's metrics carry when its props give none: the stack's name and the
 * construct's path in it (`Billing/Receiver`), unique in the account and region as stack names are.
 */
export function defaultReceiverName(scope: Construct): string {
  const stack = Stack.of(scope);
  const inStack = scope.node.scopes
    .slice(scope.node.scopes.indexOf(stack) + 1)
    .map((c) => c.node.id)
    .filter((id) => id !== 'Default');
  const name = [stack.stackName, ...inStack].join('/');
  return Token.isUnresolved(name) || name.length <= 255
    ? name
    : `${name.slice(0, 200)}-${Names.uniqueId(scope).slice(-16)}`;
}

/** Checks a `receiverName` prop. */
export function checkReceiverName(v: PropsValidation, name: string | undefined, prop: string): void {
  if (name === undefined || Token.isUnresolved(name)) return;
  v.check(
    RECEIVER_NAME_PATTERN.test(name),
    prop,
    `must be 1 to 255 letters, digits, dots, hyphens, underscores, slashes or colons (a CloudWatch dimension value), got "${name}"`,
  );
}

/** Props of the parts whose functions emit metrics: which receiver they belong to. */
export interface ReceiverNameProps {
  /**
   * The name this receiver's metrics carry (their `receiver` dimension), unique in the account
   * and region: the alarms of two receivers there (two bank accounts, or staging beside
   * production) then watch only their own. 1 to 255 letters, digits, `.`, `-`, `_`, `/`, `:`.
   * Changing it starts new metrics (dashboards and alarms follow; history stays under the old name).
   * @default - the stack's name and the construct's path in it, such as `Billing/Receiver`
   */
  readonly receiverName?: string;
}
