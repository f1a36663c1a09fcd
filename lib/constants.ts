import { EVENT_DETAIL_VERSION } from '../contracts/events';
import { METRICS_NAMESPACE } from '../contracts/receiver';
import { TRACK_PAYMENT_DETAIL_TYPE } from '../contracts/reconciliation';

/** Names the library's functions and events use, for code that reads its metrics and events. */
export class BankWebhooksConstants {
  /** Namespace of every CloudWatch metric the library's functions emit (embedded metric format). */
  public static readonly METRICS_NAMESPACE: string = METRICS_NAMESPACE;
  /** Version of the published events' detail shape (`detail.version`). */
  public static readonly EVENT_DETAIL_VERSION: string = EVENT_DETAIL_VERSION;
  /** `detail-type` of the event that asks a receiver to follow a payment the company started (cdk-bank-webhooks/docs/reconciliation.md). */
  public static readonly TRACK_PAYMENT_DETAIL_TYPE: string = TRACK_PAYMENT_DETAIL_TYPE;

  private constructor() {}
}
