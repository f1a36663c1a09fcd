/** The subjects a queue message or a journal object names, read with the handlers' own parsers. */
import type { LookSubject } from '../../contracts/reconciliation';
import { familyOfRoute, rulesOfItem } from '../../lambda/bank/families';
import { decodeLookRequest, subjectIdOf } from '../../lambda/store/look-request';
import { decodeStoredNotification } from '../../lambda/store/stored-notification';

/** A subject a message names: its id (`boleto:<codigoBeneficiario>:<nossoNumero>`, `payment:<kind>:<idTransacao>`, `pix:<endToEndId>`...) and what a look asks for. */
export interface NamedSubject {
  readonly id: string;
  readonly target: LookSubject;
}

/**
 * What a message names: a stored notification's items (and its request id), or a look request's
 * subject; nothing for anything else. A boleto event of another beneficiary is named under its
 * own beneficiary, or left out with `oursOnly`.
 */
export function namedSubjects(
  body: string,
  codigoBeneficiario: string,
  oursOnly = false,
): { subjects: NamedSubject[]; requestId?: string } {
  try {
    const look = decodeLookRequest(body);
    if (look) return { subjects: [{ id: subjectIdOf(look.subject, codigoBeneficiario), target: look.subject }] };
  } catch {
    return { subjects: [] };
  }
  try {
    const { notification, body: bytes } = decodeStoredNotification(body);
    // Each route's API family reads its bodies, as the processor does (with its default settings).
    const { items } = familyOfRoute(notification.route).parse(notification.route, bytes, {});
    const byId = new Map<string, NamedSubject>();
    for (const item of items) {
      // A boleto event names its beneficiary: another's is named under it.
      const beneficiario = (item as { beneficiario?: string }).beneficiario;
      const theirs = beneficiario !== undefined && beneficiario !== codigoBeneficiario;
      if (theirs && oursOnly) continue;
      const { target } = rulesOfItem(item);
      const id = subjectIdOf(target, theirs ? beneficiario : codigoBeneficiario);
      byId.set(id, { id, target });
    }
    return { subjects: [...byId.values()], requestId: notification.requestId };
  } catch {
    return { subjects: [] };
  }
}

/** The subject ids a message names (see namedSubjects). */
export function subjectsOf(body: string, codigoBeneficiario: string): { subjects: string[]; requestId?: string } {
  const { subjects, requestId } = namedSubjects(body, codigoBeneficiario);
  return { subjects: subjects.map((s) => s.id), ...(requestId ? { requestId } : {}) };
}
