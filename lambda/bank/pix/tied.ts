/**
 * Whose a Pix is, as the provider's answers under our credentials tie it: the Pix read by its
 * end-to-end id, its key, else its charge's (`cob`, `cobv`, `cobr`: the first concluded with it),
 * else no key (the account's receiver for keyless Pix alone). What the subjects' rules ask before
 * they read a state; a callback's own claims decide none of it. At a peak, a listing's answers
 * stand for the single reads where it shows them (bulk.ts); the rules are the same.
 */
import { PixChargeKind } from '../../../contracts/events';
import { CHARGE_TXID, normalizePixKey } from '../../../contracts/pix';
import { BankApiError } from '../errors';
import { Foreign, NotAttributed, type ProviderQueries, type RulesContext } from '../family';
import { type ChargeRead, ChargeState, type PixRead } from './answers';
import type { PixQueries } from './queries';

/**
 * Whether a 404 may be the provider's lag right after its callback: where only the provider can
 * post (mutual TLS and a pin). Where anyone can, it is another customer's at once: one query each.
 */
export const mayBeLag = (context: RulesContext): boolean => context.settings.pixCallbacksAuthenticated === true;

export function queriesOf(provider: ProviderQueries): PixQueries {
  const pix = provider.clients.pix as PixQueries | undefined;
  if (!pix)
    throw new Error("this receiver has no Pix connection: a Pix cannot be verified (set the receiver's pix prop)");
  return pix;
}

/** An account number or branch as digits, without leading zeros (`00123-4` and `1234` are one account). */
const digits = (value: string): string => value.replace(/\D/g, '').replace(/^0+/, '');

/**
 * Why a charge pays into another account than this receiver's, or undefined: Pix Automático's
 * recurring charges name an account (`recebedor`: `agencia`, `conta`), not a key; where written,
 * against the receiver's cooperative and account.
 */
export function otherAccount(
  account: { readonly agencia?: string; readonly conta?: string } | undefined,
  context: RulesContext,
): string | undefined {
  if (account?.conta !== undefined && digits(account.conta) !== digits(context.account.conta))
    return "the provider shows the recurring charge paying into another account than this receiver's";
  if (account?.agencia !== undefined && digits(account.agencia) !== digits(context.account.cooperativa))
    return "the provider shows the recurring charge paying into another branch than this receiver's cooperative";
  return undefined;
}

/** Why a key the provider names is not one of the receiver's, or undefined (no key named, or one of ours). */
export function foreignKey(chave: string | undefined, context: RulesContext): string | undefined {
  if (chave === undefined) return undefined;
  const key = normalizePixKey(chave)?.key;
  return key && context.settings.pixKeys?.includes(key)
    ? undefined
    : "the callback names a Pix key that is not one of this receiver's";
}

/**
 * Answers a listing gave (bulk verification at a peak, bulk.ts) that stand for single reads: the
 * Pix as listed under our credentials, and the charge a listing shows concluded. Undefined where
 * the listing does not show it: then it is read one by one.
 */
export interface ListedAnswers {
  pix(endToEndId: string, deadline: number): Promise<PixRead | undefined>;
  concludedCharge(
    pix: PixRead,
    deadline: number,
  ): Promise<{ readonly kind: PixChargeKind; readonly read: ChargeRead } | undefined>;
}

/** A charge as the rules keep it: where the provider showed it, and whether this Pix concluded it. */
export type ChargeAnswer = Omit<ChargeRead, 'paidBy' | 'chave' | 'account'> & {
  readonly kind: PixChargeKind;
  readonly concluded: boolean;
};

/** What the query answered, as the rules read it and the event carries it (only what the standard defines). */
export interface PixAnswer {
  readonly pix: Omit<PixRead, 'refunds' | 'unreadableRefunds'>;
  /** The charge the txid names, when it is a charge's: null when the provider shows none. */
  readonly charge?: ChargeAnswer | null;
}

/**
 * Whether the charge was concluded with this Pix: concluded, and its `pix` list names the Pix; or,
 * when the answer leaves that optional list out, the Pix's own answer under our credentials names
 * the charge's txid (only the Pix that paid a charge carries its txid, docs/pix.md).
 */
const concludedWith = (charge: ChargeRead, pix: Pick<PixRead, 'endToEndId' | 'txid'>): boolean =>
  charge.state === ChargeState.CONCLUDED &&
  (charge.paidBy === undefined ? pix.txid === charge.txid : charge.paidBy.includes(pix.endToEndId));

/**
 * The charge a Pix's txid names, read where the provider may keep it (`cob`, then `cobv`, then
 * `cobr`): the first concluded with this Pix decides; else the first found (unpaid, removed); null
 * when none is found. Each read also yields the charge's key, which ties a Pix without one.
 */
async function chargeOf(
  queries: PixQueries,
  pix: PixRead,
  deadline: number,
  listed?: ListedAnswers,
): Promise<{ charge: ChargeAnswer | null; chave?: string; account?: ChargeRead['account'] }> {
  type Found = { charge: ChargeAnswer; chave?: string; account?: ChargeRead['account'] };
  const foundOf = (kind: PixChargeKind, read: ChargeRead): Found => {
    const { paidBy: _paidBy, chave, account, ...rest } = read;
    return {
      charge: { ...rest, kind, concluded: concludedWith(read, pix) },
      ...(chave ? { chave } : {}),
      ...(account ? { account } : {}),
    };
  };
  // A charge a listing shows concluded with this Pix is what the reads below would end on (a Pix pays one charge).
  const inListing = await listed?.concludedCharge(pix, deadline);
  const listedFound = inListing && foundOf(inListing.kind, inListing.read);
  if (listedFound?.charge.concluded) return listedFound;
  let first: Found | undefined;
  for (const kind of [PixChargeKind.COB, PixChargeKind.COBV, PixChargeKind.COBR]) {
    const read =
      kind === PixChargeKind.COBR
        ? await recurringCharge(queries, pix.txid!, deadline)
        : await queries.getCharge(kind, pix.txid!, deadline);
    if (!read) continue;
    const found = foundOf(kind, read);
    if (found.charge.concluded) return found;
    first ??= found;
  }
  return first ?? { charge: null };
}

/** What a provider without Pix Automático answers for `/cobr` (or for the `cobr.read` token): no recurring charge, rather than a failed look. */
const NO_RECURRING: readonly number[] = [400, 401, 403, 404, 405, 501];

/** `GET /cobr/{txid}`, read as none where the provider does not serve recurring charges (the path, or its scope). */
async function recurringCharge(queries: PixQueries, txid: string, deadline: number): Promise<ChargeRead | undefined> {
  try {
    return await queries.getCharge(PixChargeKind.COBR, txid, deadline);
  } catch (error) {
    if (error instanceof BankApiError && error.status !== undefined && NO_RECURRING.includes(error.status))
      return undefined;
    throw error;
  }
}

/**
 * Reads a Pix and ties it to this receiver: by its own key, else by its charge's, else, tied to no
 * key, to the account's receiver for keyless Pix alone. Throws {@link Foreign} when the provider
 * holds no such Pix for us, {@link NotAttributed} when it is another receiver's.
 */
export async function tiedPix(
  queries: PixQueries,
  endToEndId: string,
  context: RulesContext,
  deadline: number,
  listed?: ListedAnswers,
): Promise<PixAnswer> {
  const pix = (await listed?.pix(endToEndId, deadline)) ?? (await queries.getPix(endToEndId, deadline));
  if (!pix)
    throw new Foreign(
      "the provider holds no such Pix under our credentials (another customer's, or none)",
      mayBeLag(context),
    );
  if (pix.endToEndId !== endToEndId)
    throw new Error(`the provider answered for another end-to-end id than ${endToEndId}`);
  // The account's, to another of its keys (a look the sweep, an operator or a callback without its key asked for): not this receiver's.
  if (foreignKey(pix.chave, context))
    throw new NotAttributed("the provider shows the Pix paid to a key of the account that is not this receiver's");
  const { refunds: _refunds, unreadableRefunds: _unreadable, ...shown } = pix;
  const read = pix.txid && CHARGE_TXID.test(pix.txid) ? await chargeOf(queries, pix, deadline, listed) : undefined;
  // A recurring charge's Pix is the account's whose charge it paid: never another account's.
  const elsewhere = read?.charge?.kind === PixChargeKind.COBR ? otherAccount(read.account, context) : undefined;
  if (elsewhere) throw new NotAttributed(elsewhere);
  if (pix.chave === undefined) {
    if (read?.chave !== undefined) {
      if (foreignKey(read.chave, context))
        throw new NotAttributed(
          "the provider shows the Pix paying a charge of a key of the account that is not this receiver's",
        );
    } else if (!context.settings.pixKeyless) {
      throw new NotAttributed(
        "the provider ties the Pix to no key (no chave, and no charge with one): only the account's receiver for keyless Pix publishes it",
      );
    }
  }
  return { pix: shown, ...(read ? { charge: read.charge } : {}) };
}
