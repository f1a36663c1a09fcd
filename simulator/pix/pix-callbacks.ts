/**
 * How the provider announces Pix (cdk-bank-webhooks/docs/pix.md): a POST of `{"pix": [...]}` to the key's webhook
 * URL with `/pix` appended, presenting the provider's client certificate and no credential; only
 * Pix with a txid, several of one key together (one no key ties: to each of the account's URLs);
 * a refund once it reaches its final status. Also
 * what a receiver meets besides: the validation call (the bare URL, no `pix` array) and another
 * customer's Pix sent to a URL that customer registered.
 */
import { randomUUID } from 'node:crypto';
import type { OutgoingNotification } from '../bank-common';
import type { PixBehaviour } from './pix-behaviour';
import type { PixBook } from './pix-book';
import type { PixReceived } from './pix-model';
import { pixView, PixViewPlace } from './pix-views';

export interface PixCallbackParts {
  readonly book: PixBook;
  readonly behaviour: () => PixBehaviour;
  readonly notify: (notification: OutgoingNotification) => void;
}

/** The URL a callback goes to: the registered URL with `/pix` appended as the provider does, a final `/` kept (so `…/` becomes `…//pix`). */
export const callbackUrl = (webhookUrl: string): string => `${webhookUrl}/pix`;

export class PixCallbacks {
  constructor(private readonly p: PixCallbackParts) {}

  /**
   * Announces Pix received: those with a txid, one call per key with all of that key's Pix; a
   * Pix without one is never announced (logged as not sent, with the reason).
   */
  announce(received: readonly PixReceived[]): OutgoingNotification[] {
    const sent: OutgoingNotification[] = [];
    const byKey = new Map<string, PixReceived[]>();
    for (const pix of received) {
      if (pix.txid === undefined) {
        sent.push(
          this.send({
            id: randomUUID(),
            kind: 'pix',
            subject: `pix ${pix.endToEndId} ${pix.valor}`,
            body: { pix: [this.view(pix)] },
            skipped: 'a Pix without a txid is never announced (the standard notifies only Pix with a txid)',
          }),
        );
      } else if (pix.chave === undefined) {
        sent.push(...this.keyless(pix));
      } else {
        byKey.set(pix.chave, [...(byKey.get(pix.chave) ?? []), pix]);
      }
    }
    for (const [chave, pix] of byKey) {
      const webhook = this.p.book.webhookOf(chave);
      const subject = `pix ${pix.map((p) => p.endToEndId).join(' ')}`;
      const body = { pix: pix.map((p) => this.view(p)) };
      sent.push(
        this.send(
          webhook
            ? {
                id: randomUUID(),
                kind: 'pix',
                subject,
                body,
                url: callbackUrl(webhook.webhookUrl),
                clientCertificate: true,
              }
            : { id: randomUUID(), kind: 'pix', subject, body, skipped: `no webhook registered for the key ${chave}` },
        ),
      );
    }
    return sent;
  }

  /**
   * A Pix with a txid that no key ties (paid by the account's details, or a recurring charge's):
   * the standard's webhooks are per key, so the simulator plays a provider that sends it to each
   * distinct URL the account's keys registered (a receiver that is not its account's owner of
   * keyless Pix must leave it alone).
   */
  private keyless(pix: PixReceived): OutgoingNotification[] {
    const urls = [
      ...new Set(
        this.p.book.keys.map((k) => this.p.book.webhookOf(k)?.webhookUrl).filter((u): u is string => u !== undefined),
      ),
    ];
    const subject = `pix ${pix.endToEndId} (no key)`;
    if (!urls.length)
      return [
        this.send({
          id: randomUUID(),
          kind: 'pix',
          subject,
          body: { pix: [this.view(pix)] },
          skipped: 'no webhook registered for any key of the account',
        }),
      ];
    return urls.map((url) =>
      this.send({
        id: randomUUID(),
        kind: 'pix',
        subject,
        body: { pix: [this.view(pix)] },
        url: callbackUrl(url),
        clientCertificate: true,
      }),
    );
  }

  /** A refund reached its final status: its Pix is announced again, with its refunds. */
  announceRefund(pix: PixReceived, refundId: string): OutgoingNotification {
    const [notification] = this.announce([pix]);
    return { ...notification, subject: `${notification.subject} devolucao ${refundId}` };
  }

  /** Another customer's Pix, sent to `url` + `/pix` with the provider's genuine certificate. */
  foreign(webhookUrl: string, pix: PixReceived): OutgoingNotification {
    return this.send({
      id: randomUUID(),
      kind: 'pix',
      subject: `pix ${pix.endToEndId} of another customer`,
      body: { pix: [this.view(pix)] },
      url: callbackUrl(webhookUrl),
      clientCertificate: true,
    });
  }

  /** The validation call some providers make: the bare registered URL, a body with no `pix` array. */
  validation(webhookUrl: string, body: unknown = {}): OutgoingNotification {
    return this.send({
      id: randomUUID(),
      kind: 'pix',
      subject: 'validation call',
      body,
      url: webhookUrl,
      clientCertificate: true,
    });
  }

  private view(pix: PixReceived) {
    return pixView(pix, this.p.behaviour(), PixViewPlace.CALLBACK);
  }

  private send(notification: OutgoingNotification): OutgoingNotification {
    this.p.notify(notification);
    return notification;
  }
}
