import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { TracingProps } from './tracing';

/**
 * How a part's functions are logged, traced and alarmed: the props every part that makes a
 * function takes (the endpoint, the processor, the sweep; a BankWebhookReceiver passes its own to
 * each), declared once.
 */
export interface ObservabilityProps extends TracingProps {
  /**
   * Retention of the log groups the part makes (an endpoint's: its receiver function's and its
   * access log; in a BankWebhookReceiver, every log group).
   * @default logs.RetentionDays.ONE_YEAR
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * KMS key of the log groups the part makes (in a BankWebhookReceiver, every log group the
   * library creates: the receiver's, the access log, the processor's, the sweep's and the
   * registration provider's). A key made in the same stack is given the statement CloudWatch Logs
   * needs; an imported key's policy must already allow `logs.<region>.amazonaws.com`.
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
  /**
   * SNS topic notified when one of the part's alarms goes off and when it clears.
   * @default - alarms without actions
   */
  readonly alarmTopic?: sns.ITopic;
}
