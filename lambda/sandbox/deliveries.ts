/**
 * A deployed simulator's deliveries: a change's notifications are collected while the request
 * runs, delivered by the bank's rules once its state is stored (so the receiver's query finds the
 * change), and logged in the stored state.
 */
import { SandboxDefaults } from '../../contracts/sandbox';
import type { OutgoingNotification } from '../../simulator/bank';
import type { DeliverySink } from '../../simulator/engine';
import { type DeliveryOutcomeFields, deliveryRecord, type DeliveryRecord } from '../../simulator/notifier';
import type { StoredDeliveries } from './state-store';

/** Collects what one request's run of the simulator sends, over the stored delivery log. */
export class CollectingSink implements DeliverySink {
  /** Notifications with somewhere to go, delivered after the state is stored. */
  readonly outgoing: OutgoingNotification[] = [];
  private log: DeliveryRecord[];
  private nextSeq: number;

  constructor(
    private readonly stored: StoredDeliveries,
    private readonly now: () => number,
  ) {
    this.log = [...stored.log];
    this.nextSeq = stored.nextSeq;
  }

  submit(notification: OutgoingNotification): void {
    if (notification.url) this.outgoing.push(notification);
    else
      this.log.push(
        deliveryRecord(this.nextSeq++, notification, 1, {
          outcome: 'NÃO ENVIADO',
          reason: notification.skipped,
          durationMs: 0,
          startedAt: new Date(this.now()).toISOString(),
        }),
      );
  }

  records(afterSeq: number): DeliveryRecord[] {
    return this.log.filter((record) => record.seq > afterSeq);
  }

  clear(): void {
    this.log = [];
  }

  get pending(): number {
    return livePending(this.stored, this.now()).length + this.outgoing.length;
  }

  /** The stored log answers at once; waiting for other requests' deliveries is the host's (it reads the table again). */
  idle(): Promise<boolean> {
    return Promise.resolve(this.pending === 0);
  }

  /** The deliveries to store: the log (its newest lines), and this request's notifications as pending. */
  toStored(deadline: number): StoredDeliveries {
    return {
      log: this.log.slice(-SandboxDefaults.deliveryLogLength),
      nextSeq: this.nextSeq,
      pending: [...livePending(this.stored, this.now()), ...this.outgoing.map((n) => ({ id: n.id, until: deadline }))],
    };
  }
}

/** Pending deliveries whose request can still record them (a request that died leaves its entries to expire). */
export function livePending(stored: StoredDeliveries, now: number): StoredDeliveries['pending'] {
  return stored.pending.filter((entry) => entry.until > now);
}

/** One delivery's result, to be logged. */
export interface DeliveryDone {
  readonly notification: OutgoingNotification;
  readonly attempt: number;
  readonly result: DeliveryOutcomeFields;
}

/** The stored deliveries with `done` logged and their notifications no longer pending. */
export function recordDeliveries(
  stored: StoredDeliveries,
  done: readonly DeliveryDone[],
  now: number,
): StoredDeliveries {
  let nextSeq = stored.nextSeq;
  const lines = done.map((d) => deliveryRecord(nextSeq++, d.notification, d.attempt, d.result));
  const finished = new Set(done.map((d) => d.notification.id));
  return {
    log: [...stored.log, ...lines].slice(-SandboxDefaults.deliveryLogLength),
    nextSeq,
    pending: livePending(stored, now).filter((entry) => !finished.has(entry.id)),
  };
}
