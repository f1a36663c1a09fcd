/**
 * How the processor reads one SQS record before it looks at anything: a look request, or a stored
 * notification decoded (its Content-Encoding undone), read by its route's family into the items
 * this receiver may verify, grouped by subject; or why it cannot be read.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { SQSRecord } from 'aws-lambda';
import type { StoredNotification } from '../../contracts/receiver';
import type { LookRequest } from '../../contracts/reconciliation';
import type { SubjectItem } from '../bank/family';
import { familyOfRoute, rulesOfItem } from '../bank/families';
import { errorMessage } from '../shared/runtime';
import { decodeLookRequest } from '../store/look-request';
import { decodeStoredNotification } from '../store/stored-notification';
import type { ProcessorDeps } from './deps';
import { dropForeign, groupBySubject, groupOf, type SubjectGroup } from './subject';

/** A record as read: what it is, or why it cannot be handled. */
export type ReadRecord =
  | { readonly kind: 'look'; readonly request: LookRequest }
  | { readonly kind: 'unreadable-look'; readonly reason: string }
  | { readonly kind: 'unreadable'; readonly reason: string }
  | { readonly kind: 'undecodable'; readonly stored: StoredNotification; readonly reason: string }
  | {
      readonly kind: 'notification';
      readonly stored: StoredNotification;
      readonly groups: SubjectGroup[];
      readonly unprocessable: string[];
    }
  | { readonly kind: 'failed'; readonly error: unknown };

/** Reads one record (never throws: a failure is `failed`, retried in the record's own processing). */
export function readRecord(record: SQSRecord, deps: ProcessorDeps): ReadRecord {
  try {
    let request: LookRequest | undefined;
    try {
      request = decodeLookRequest(record.body);
    } catch (error) {
      return { kind: 'unreadable-look', reason: errorMessage(error) };
    }
    if (request) return { kind: 'look', request };
    let stored: StoredNotification;
    let body: Buffer;
    try {
      ({ notification: stored, body } = decodeStoredNotification(record.body));
    } catch (error) {
      return { kind: 'unreadable', reason: errorMessage(error) };
    }
    let content: Buffer;
    try {
      content = decodeContent(body, stored.contentEncoding);
    } catch (error) {
      return { kind: 'undecodable', stored, reason: errorMessage(error) };
    }
    const parsed = familyOfRoute(stored.route).parse(stored.route, content, deps.settings);
    const ours = deps.account.codigoBeneficiario;
    const { items, others } = ourItems(parsed.items, deps);
    return {
      kind: 'notification',
      stored,
      groups: groupBySubject(items, ours),
      unprocessable: [...parsed.problems, ...others],
    };
  } catch (error) {
    // Failing where it always did: in the record's own processing, which is retried.
    return { kind: 'failed', error };
  }
}

/** The subjects a record names (what cannot be read names none: its record handles it). */
export function subjectsNamed(read: ReadRecord, ours: string): string[] {
  if (read.kind === 'look') return [groupOf(read.request.subject, ours).id];
  return read.kind === 'notification' ? read.groups.map((group) => group.id) : [];
}

/**
 * The items this receiver may verify, and why each other one is not (a boleto event of another
 * beneficiary: quarantined). A third party's item anyone at the provider can send (a Pix to a key
 * that is not ours) is dropped and counted, never quarantined: the journal keeps the body.
 */
function ourItems(items: readonly SubjectItem[], deps: ProcessorDeps): { items: SubjectItem[]; others: string[] } {
  const others: string[] = [];
  const kept = items.filter((item) => {
    const { rules } = rulesOfItem(item);
    const foreign = rules.foreign?.(item, deps);
    if (foreign) {
      dropForeign(rules.kind, foreign, deps);
      return false;
    }
    const notOurs = rules.notOurs(item, deps.account);
    if (notOurs) others.push(notOurs);
    return !notOurs;
  });
  return { items: kept, others };
}

/** Largest body a compressed notification may expand to. */
const MAX_DECODED_BYTES = 5 * 1024 * 1024;

/** The body as the bank meant it: decompressed when the request had a Content-Encoding (gzip, deflate, br). */
export function decodeContent(body: Buffer, contentEncoding: string | undefined): Buffer {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  const options = { maxOutputLength: MAX_DECODED_BYTES };
  try {
    if (!encoding || encoding === 'identity') return body;
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body, options);
    if (encoding === 'deflate') return inflateSync(body, options);
    if (encoding === 'br') return brotliDecompressSync(body, options);
  } catch (error) {
    throw new Error(
      `the notification's Content-Encoding ${encoding} could not be decoded (${errorMessage(error)}; at most ${MAX_DECODED_BYTES} bytes)`,
      { cause: error },
    );
  }
  throw new Error(
    `the notification's Content-Encoding "${encoding.slice(0, 40)}" is not one the processor reads (gzip, deflate, br)`,
  );
}
