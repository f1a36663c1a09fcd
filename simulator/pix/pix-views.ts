/**
 * What the Pix API writes of the records it holds, in the reading the behaviour sets (cdk-bank-webhooks/docs/pix.md,
 * pix-behaviour.ts): a Pix in a callback or a query answer, a charge with its Pix, a webhook.
 */
import {
  type PixBehaviour,
  PixCallbackKey,
  PixChargePixList,
  PixQueryTime,
  PixRefundsShape,
  PixTimeZone,
  PixWebhookKeyField,
} from './pix-behaviour';
import type { PixCharge, PixReceived, PixRefund, PixWebhook } from './pix-model';

/** Where a Pix is written: a callback's `pix[]`, or a query's answer. */
export enum PixViewPlace {
  CALLBACK = 'callback',
  QUERY = 'query',
}

/** A Pix as the provider writes it: refunds left out when none, or as the behaviour shapes them. */
export function pixView(pix: PixReceived, behaviour: PixBehaviour, place: PixViewPlace): Record<string, unknown> {
  const { endToEndId, devolucoes, chave, horario: written, ...rest } = pix;
  // Brasília's wall clock, three hours behind UTC all year, with no zone.
  const horario =
    behaviour.pixTimeZone === PixTimeZone.LEFT_OUT
      ? new Date(Date.parse(written) - 3 * 3600_000).toISOString().slice(0, 23)
      : written;
  const view: Record<string, unknown> = {
    [behaviour.pixEndToEndIdField]: endToEndId,
    ...rest,
    horario:
      place === PixViewPlace.QUERY && behaviour.pixQueryTime === PixQueryTime.OBJECT
        ? { solicitacao: horario, liquidacao: horario }
        : horario,
  };
  if (place === PixViewPlace.QUERY || behaviour.pixCallbackKey === PixCallbackKey.SENT) view.chave = chave;
  if (devolucoes.length > 0) view.devolucoes = refundsView(devolucoes, behaviour);
  return view;
}

function refundsView(refunds: readonly PixRefund[], behaviour: PixBehaviour): unknown {
  // The object reading can only hold one refund: more are written as the array they are.
  return behaviour.pixRefundsShape === PixRefundsShape.OBJECT && refunds.length === 1
    ? { ...refunds[0] }
    : refunds.map((r) => ({ ...r }));
}

/** A charge as `GET /cob/{txid}` answers it: its Pix written out in full. */
export function chargeView(
  charge: PixCharge,
  pixOf: (endToEndId: string) => PixReceived,
  behaviour: PixBehaviour,
): Record<string, unknown> {
  const { kind: _kind, pix, ...rest } = charge;
  const listed = pix.length && behaviour.pixChargePixList === PixChargePixList.LISTED;
  return { ...rest, ...(listed ? { pix: pix.map((id) => pixView(pixOf(id), behaviour, PixViewPlace.QUERY)) } : {}) };
}

/** A webhook as `GET /webhook/{chave}` answers it, the key under the name the behaviour gives. */
export function webhookView(webhook: PixWebhook, behaviour: PixBehaviour): Record<string, unknown> {
  const key =
    behaviour.pixWebhookKeyField === PixWebhookKeyField.CNPJ ? { cnpj: webhook.chave } : { chave: webhook.chave };
  return { webhookUrl: webhook.webhookUrl, ...key, criacao: webhook.criacao };
}
