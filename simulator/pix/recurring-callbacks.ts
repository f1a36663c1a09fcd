/**
 * How the provider announces Pix Automático (the standard's callbacks of `PUT /webhookrec` and
 * `PUT /webhookcobr`): a POST of `{"recs": [...]}` to the registered URL with `/rec` appended, and
 * of `{"cobsr": [...]}` with `/cobr` appended, presenting the provider's client certificate and no
 * credential (`security: []`), as `/pix` is called. The standard never says when they fire: the
 * simulator calls at every change of status, and a receiver treats each as "go and look".
 */
import { randomUUID } from 'node:crypto';
import type { OutgoingNotification } from '../bank-common';
import type { PixBehaviour } from './pix-behaviour';
import type { PixReceived } from './pix-model';
import { type Recurrence, type RecurringCharge, RecurringWebhookKind } from './recurring-model';
import { cobrNotificationView, recNotificationView } from './recurring-views';
import type { RecurringWebhooks } from './recurring-webhooks';

export interface RecurringCallbackParts {
  readonly webhooks: RecurringWebhooks;
  readonly pixOf: (endToEndId: string) => PixReceived;
  readonly behaviour: () => PixBehaviour;
  readonly notify: (notification: OutgoingNotification) => void;
}

export class RecurringCallbacks {
  constructor(private readonly p: RecurringCallbackParts) {}

  /** A recurrence changed: `{webhookrec}/rec`. */
  rec(rec: Recurrence): OutgoingNotification {
    return this.send(RecurringWebhookKind.REC, `rec ${rec.idRec} ${rec.status}`, {
      recs: [recNotificationView(rec, this.p.behaviour())],
    });
  }

  /** A recurring charge changed: `{webhookcobr}/cobr`. */
  cobr(cobr: RecurringCharge): OutgoingNotification {
    const view = cobrNotificationView(cobr, this.p.pixOf, this.p.behaviour());
    return this.send(RecurringWebhookKind.COBR, `cobr ${cobr.txid} ${cobr.status}`, { cobsr: [view] });
  }

  private send(kind: RecurringWebhookKind, subject: string, body: unknown): OutgoingNotification {
    const webhook = this.p.webhooks.of(kind);
    const notification: OutgoingNotification = webhook
      ? { id: randomUUID(), kind: 'pix', subject, body, url: `${webhook.webhookUrl}/${kind}`, clientCertificate: true }
      : { id: randomUUID(), kind: 'pix', subject, body, skipped: `no webhook${kind} registered` };
    this.p.notify(notification);
    return notification;
  }
}
