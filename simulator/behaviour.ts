/**
 * Where the bank's manual and the public clients of its API disagree, or the manual is silent, the
 * simulator can play each reading (cdk-bank-webhooks/docs/bank-api.md). The default of each is the manual's; the others
 * are set at start (`behaviour`) or at run time (`PUT /control/behaviour`). docs/simulator.md
 * lists every choice and its source.
 */

import { PIX_BEHAVIOUR_VALUES, type PixBehaviour, STANDARD_PIX_BEHAVIOUR } from './pix/pix-behaviour';

/** How the boleto query answers. */
export enum BoletoQueryShape {
  /** A flat object with the manual's fields (`valorNominal`, `dataVencimento` as YYYY-MM-DD...). The manual's. */
  FLAT = 'flat',
  /** `{"resultado": {...}}` with `valor` and date arrays: this simulator's earlier guess, kept for old fixtures. */
  WRAPPED = 'wrapped',
}

/** What the `Z` of `dadosLiquidacao.data` (`YYYY-MM-DDTHH:mm:ss.SSSZ`) means: the manual does not say. */
export enum SettlementTimestamp {
  /** A true UTC instant: 22:30 at the bank is written 01:30Z of the next day. */
  UTC = 'utc',
  /** The bank's local time (UTC−3) written with a Z: 22:30 at the bank is written 22:30Z. */
  BANK_LOCAL = 'bank-local',
}

/** How the settled-by-day listing writes `hasNext`: the manual's table types it String, its example a boolean. */
export enum HasNextType {
  BOOLEAN = 'boolean',
  STRING = 'string',
  /** Left out: a client can only tell the last page by its size (or by an empty next one). */
  MISSING = 'missing',
}

/** What the listing answers for a day with nothing settled (or a page past the last). */
export enum EmptyListing {
  /** 200 with `{"items": [], "hasNext": false}`. */
  EMPTY_PAGE = 'empty-page',
  /** 404, as one public script expects (it reads a 404 as an empty day). */
  NOT_FOUND = 'not-found',
}

/** Which methods change a boleto webhook contract. */
export enum ContractChange {
  /** PUT with the whole contract (the spec) and PATCH with a partial body (a later manual). */
  PUT_OR_PATCH = 'put-or-patch',
  /** PUT only; PATCH answers 405. */
  PUT = 'put',
  /** PATCH only; PUT answers 405. */
  PATCH = 'patch',
}

/** Which payments scopes each payments operation needs. */
export enum PaymentScopeRule {
  /** `<product>.<kind>.consultar` for a query of that kind, a `pagar` scope for the callback registration (the public clients). */
  PER_OPERATION = 'per-operation',
  /** Any payments scope for any payments operation (the looser reading of the spec, which lists only `pagar`). */
  ANY = 'any',
}

/** The bank's readings, and the Pix API's (pix/pix-behaviour.ts). */
export interface BankBehaviour extends PixBehaviour {
  readonly boletoQueryShape: BoletoQueryShape;
  readonly settlementTimestamp: SettlementTimestamp;
  /** Items a page of the settled-by-day listing. */
  readonly listingPageSize: number;
  readonly listingHasNext: HasNextType;
  /** The number of the listing's first page (`pagina`). */
  readonly listingFirstPage: 0 | 1;
  readonly emptyListing: EmptyListing;
  readonly contractChange: ContractChange;
  readonly paymentScopes: PaymentScopeRule;
}

/** The manual's readings. */
export const MANUAL_BEHAVIOUR: BankBehaviour = {
  boletoQueryShape: BoletoQueryShape.FLAT,
  settlementTimestamp: SettlementTimestamp.UTC,
  listingPageSize: 500,
  listingHasNext: HasNextType.BOOLEAN,
  listingFirstPage: 1,
  emptyListing: EmptyListing.EMPTY_PAGE,
  contractChange: ContractChange.PUT_OR_PATCH,
  paymentScopes: PaymentScopeRule.PER_OPERATION,
  ...STANDARD_PIX_BEHAVIOUR,
};

const ENUMS: Partial<Record<keyof BankBehaviour, readonly unknown[]>> = {
  boletoQueryShape: Object.values(BoletoQueryShape),
  settlementTimestamp: Object.values(SettlementTimestamp),
  listingHasNext: Object.values(HasNextType),
  listingFirstPage: [0, 1],
  emptyListing: Object.values(EmptyListing),
  contractChange: Object.values(ContractChange),
  paymentScopes: Object.values(PaymentScopeRule),
  ...PIX_BEHAVIOUR_VALUES,
};

/**
 * `current` with the changes of `input` (a JSON object), every key and value checked; throws one
 * error naming every problem and the values each key takes.
 */
export function changeBehaviour(current: BankBehaviour, input: unknown): BankBehaviour {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw new Error('The behaviour must be a JSON object, such as {"listingPageSize": 50}.');
  const problems: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (key === 'listingPageSize') {
      if (!(Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 10_000))
        problems.push(`listingPageSize must be a whole number from 1 to 10000 (got ${JSON.stringify(value)})`);
      continue;
    }
    const allowed = ENUMS[key as keyof BankBehaviour];
    if (!allowed) problems.push(`unknown setting ${key} (known: ${Object.keys(MANUAL_BEHAVIOUR).join(', ')})`);
    else if (!allowed.includes(value))
      problems.push(
        `${key} takes ${allowed.map((v) => JSON.stringify(v)).join(' or ')} (got ${JSON.stringify(value)})`,
      );
  }
  if (problems.length) throw new Error(`Behaviour not changed: ${problems.join('; ')}.`);
  return { ...current, ...(input as Partial<BankBehaviour>) };
}
