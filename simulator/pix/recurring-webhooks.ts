/**
 * Pix Automático's two webhooks (`PUT /webhookrec`, `PUT /webhookcobr`, their `GET` and `DELETE`):
 * one of each per user, not per key, as the standard's paths have no key.
 */
import { pixNotFound, rfc3339, webhookUrlOf } from './pix-model';
import type { RecurringState, RecurringWebhook, RecurringWebhookKind } from './recurring-model';

export class RecurringWebhooks {
  private held: RecurringState['webhooks'] = {};

  constructor(private readonly now: () => number = Date.now) {}

  exportState(): RecurringState['webhooks'] {
    return structuredClone(this.held);
  }

  restoreState(state: RecurringState['webhooks']): void {
    this.held = structuredClone(state);
  }

  /** `PUT`: `webhookUrl` (an https URL), replacing any. */
  put(kind: RecurringWebhookKind, body: unknown): RecurringWebhook {
    const webhook = { webhookUrl: webhookUrlOf(body), criacao: rfc3339(this.now()) };
    this.held = { ...this.held, [kind]: webhook };
    return { ...webhook };
  }

  /** `GET`. */
  get(kind: RecurringWebhookKind): RecurringWebhook {
    const webhook = this.held[kind];
    if (!webhook) throw pixNotFound(`Nenhum webhook${kind} cadastrado.`);
    return { ...webhook };
  }

  /** `DELETE` (also the provider dropping it on its own). */
  delete(kind: RecurringWebhookKind): void {
    this.get(kind);
    const { [kind]: _dropped, ...rest } = this.held;
    this.held = rest;
  }

  /** Where `kind`'s callbacks go, if anywhere. */
  of(kind: RecurringWebhookKind): RecurringWebhook | undefined {
    return this.held[kind];
  }
}
