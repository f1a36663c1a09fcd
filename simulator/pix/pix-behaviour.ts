/**
 * The readings of the standard Pix API the simulator can play where the standard, its examples and
 * this bank's clients differ (cdk-bank-webhooks/docs/pix.md). Part of the simulator's behaviour (`PUT
 * /control/behaviour`); the default of each is the standard's text. docs/simulator.md lists them.
 */

/** Where the Pix token endpoint reads `grant_type`. */
export enum PixGrantType {
  /** The form body only; in the query string it is refused with 400 (the bank, production, 2026-06). */
  BODY = 'body',
  /** The form body or the query string (what one public client still sends). */
  BODY_OR_QUERY = 'body-or-query',
}

/** How `GET /webhook/{chave}` and `GET /webhook` name the key. */
export enum PixWebhookKeyField {
  /** `chave` (the standard's example). */
  CHAVE = 'chave',
  /** `cnpj` (the `WebhookCompleto` schema of some releases). */
  CNPJ = 'cnpj',
}

/** How a Pix writes its refunds. */
export enum PixRefundsShape {
  /** `devolucoes: [...]` (the schema). */
  ARRAY = 'array',
  /** `devolucoes: {...}`, one refund as an object (the standard's own callback example). */
  OBJECT = 'object',
}

/** How a Pix spells its end-to-end id. */
export enum PixEndToEndIdField {
  /** `endToEndId` (the standard). */
  END_TO_END_ID = 'endToEndId',
  /** `endToEndID` (seen in this bank's answers). */
  END_TO_END_ID_UPPER = 'endToEndID',
}

/** How query answers (`GET /pix`, `GET /pix/{e2eid}`, a charge's `pix[]`) write a Pix's `horario`. */
export enum PixQueryTime {
  /** An RFC 3339 string, as the callback does (the standard). */
  STRING = 'string',
  /** `{solicitacao, liquidacao}` (this bank's query answers). */
  OBJECT = 'object',
}

/** Whether a callback's Pix carry `chave`. */
export enum PixCallbackKey {
  SENT = 'sent',
  /** Left out, as the standard's own callback examples do. */
  LEFT_OUT = 'left-out',
}

/** Whether a charge's answer (`GET /cob`, `/cobv`) lists the Pix that paid it. */
export enum PixChargePixList {
  /** `pix: [...]` (the standard's examples). */
  LISTED = 'listed',
  /** Left out (the schema makes it optional): only the Pix's own answer names the charge's txid. */
  LEFT_OUT = 'left-out',
}

/** How much of Pix Automático's records the provider writes (`RecCompleta`, `CobRCompleta`, and their callbacks). */
export enum PixRecurringAnswers {
  /** Every field the simulator holds (the standard's examples). */
  FULL = 'full',
  /**
   * What the schemas require and little more: a recurrence's `idRec` and `status`; a charge's
   * `idRec`, `txid`, `status`, `valor` and `calendario` (no account, history, attempts or Pix
   * list); and callbacks naming only the id, the same body for every change.
   */
  LEAN = 'lean',
}

/** How a Pix's `horario` is written. */
export enum PixTimeZone {
  /** RFC 3339 with its zone (the standard). */
  WITH_ZONE = 'with-zone',
  /** Brasília's local time with no zone (seen in some providers' answers): the library reads it in America/Sao_Paulo. */
  LEFT_OUT = 'left-out',
}

export interface PixBehaviour {
  readonly pixGrantType: PixGrantType;
  /** What `PUT /webhook/{chave}` answers: 200 (the standard) or 201 (one provider's docs). */
  readonly pixWebhookPutStatus: 200 | 201;
  readonly pixWebhookKeyField: PixWebhookKeyField;
  readonly pixRefundsShape: PixRefundsShape;
  readonly pixEndToEndIdField: PixEndToEndIdField;
  readonly pixQueryTime: PixQueryTime;
  readonly pixCallbackKey: PixCallbackKey;
  readonly pixChargePixList: PixChargePixList;
  readonly pixTimeZone: PixTimeZone;
  readonly pixRecurringAnswers: PixRecurringAnswers;
}

/** The standard's readings. */
export const STANDARD_PIX_BEHAVIOUR: PixBehaviour = {
  pixGrantType: PixGrantType.BODY,
  pixWebhookPutStatus: 200,
  pixWebhookKeyField: PixWebhookKeyField.CHAVE,
  pixRefundsShape: PixRefundsShape.ARRAY,
  pixEndToEndIdField: PixEndToEndIdField.END_TO_END_ID,
  pixQueryTime: PixQueryTime.STRING,
  pixCallbackKey: PixCallbackKey.SENT,
  pixChargePixList: PixChargePixList.LISTED,
  pixTimeZone: PixTimeZone.WITH_ZONE,
  pixRecurringAnswers: PixRecurringAnswers.FULL,
};

/** The values each Pix setting takes. */
export const PIX_BEHAVIOUR_VALUES: Record<keyof PixBehaviour, readonly unknown[]> = {
  pixGrantType: Object.values(PixGrantType),
  pixWebhookPutStatus: [200, 201],
  pixWebhookKeyField: Object.values(PixWebhookKeyField),
  pixRefundsShape: Object.values(PixRefundsShape),
  pixEndToEndIdField: Object.values(PixEndToEndIdField),
  pixQueryTime: Object.values(PixQueryTime),
  pixCallbackKey: Object.values(PixCallbackKey),
  pixChargePixList: Object.values(PixChargePixList),
  pixTimeZone: Object.values(PixTimeZone),
  pixRecurringAnswers: Object.values(PixRecurringAnswers),
};
