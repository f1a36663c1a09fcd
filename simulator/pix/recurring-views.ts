/**
 * What the Pix API writes of Pix Automático's records: a recurrence or a recurring charge as its
 * query answers it (`RecCompleta`, `CobRCompleta`), and as its callback carries it
 * (`RecNotification`, `CobRNotification`: the status, its history and how it ended; a charge's
 * attempts and the Pix that paid it).
 */
import { type PixBehaviour, PixRecurringAnswers } from './pix-behaviour';
import type { PixReceived } from './pix-model';
import { pixView, PixViewPlace } from './pix-views';
import type { Recurrence, RecurringCharge } from './recurring-model';

const lean = (behaviour: PixBehaviour | undefined) => behaviour?.pixRecurringAnswers === PixRecurringAnswers.LEAN;

/** `GET /rec/{idRec}` and each of `GET /rec`'s `recs`. */
export function recView(rec: Recurrence, behaviour?: PixBehaviour): Record<string, unknown> {
  if (lean(behaviour)) return { idRec: rec.idRec, status: rec.status };
  return structuredClone({ ...rec });
}

/** One of a `/rec` callback's `recs`. */
export function recNotificationView(rec: Recurrence, behaviour?: PixBehaviour): Record<string, unknown> {
  if (lean(behaviour)) return { idRec: rec.idRec };
  const { idRec, status, atualizacao, encerramento, ativacao } = rec;
  return structuredClone({ idRec, status, atualizacao, ...(encerramento ? { encerramento } : {}), ativacao });
}

/** `GET /cobr/{txid}` and each of `GET /cobr`'s `cobsr`: its Pix written out in full. */
export function cobrView(
  cobr: RecurringCharge,
  pixOf: (endToEndId: string) => PixReceived,
  behaviour: PixBehaviour,
): Record<string, unknown> {
  const { pix, ...rest } = cobr;
  if (lean(behaviour)) {
    const { idRec, txid, status, valor, calendario } = rest;
    return structuredClone({ idRec, txid, status, valor, calendario });
  }
  return {
    ...structuredClone(rest),
    ...(pix.length ? { pix: pix.map((id) => pixView(pixOf(id), behaviour, PixViewPlace.QUERY)) } : {}),
  };
}

/** One of a `/cobr` callback's `cobsr`. */
export function cobrNotificationView(
  cobr: RecurringCharge,
  pixOf: (endToEndId: string) => PixReceived,
  behaviour: PixBehaviour,
): Record<string, unknown> {
  if (lean(behaviour)) return { txid: cobr.txid };
  const { idRec, txid, status, atualizacao, encerramento, tentativas, pix } = cobr;
  return {
    ...structuredClone({ idRec, txid, status, atualizacao, ...(encerramento ? { encerramento } : {}), tentativas }),
    ...(pix.length ? { pix: pix.map((id) => pixView(pixOf(id), behaviour, PixViewPlace.CALLBACK)) } : {}),
  };
}
