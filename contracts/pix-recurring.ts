/**
 * Pix Automático in the standard Pix API (the Central Bank's API Pix, release 2.9.0, `bacen/pix-api`
 * openapi.yaml): the recurrence (`rec`, the payer's authorization) and its recurring charges
 * (`cobr`), their statuses, the codes of their endings, and their ids. The one definition the
 * simulator's provider and the library's client both hold answers to.
 */

/**
 * A recurrence's id (`idRec`): 29 letters and digits (the standard's pattern). Its formation rule
 * is `R`, `R` or `N` (retries allowed or not), the agent's 8 characters (an ISPB, or a CNPJ's
 * first 8, alphanumeric since 2.9.0), the creation date `yyyyMMdd` and an 11-character sequence;
 * an answer is read by the pattern alone.
 */
export const REC_ID = /^[a-zA-Z0-9]{29}$/;

/**
 * The account's two Pix Automático webhooks, one each per user (no key): `PUT /webhookrec`, called
 * at `{webhookUrl}/rec` with `{"recs": [...]}`, and `PUT /webhookcobr`, called at
 * `{webhookUrl}/cobr` with `{"cobsr": [...]}`.
 */
export enum RecurringWebhookKind {
  REC = 'rec',
  COBR = 'cobr',
}

/** A recurrence's status (`RecStatus`). */
export enum RecStatus {
  CREATED = 'CRIADA',
  APPROVED = 'APROVADA',
  REJECTED = 'REJEITADA',
  EXPIRED = 'EXPIRADA',
  CANCELLED = 'CANCELADA',
}

/** A recurring charge's status (`CobRStatus`). */
export enum RecurringChargeStatus {
  CREATED = 'CRIADA',
  ACTIVE = 'ATIVA',
  CONCLUDED = 'CONCLUIDA',
  EXPIRED = 'EXPIRADA',
  REJECTED = 'REJEITADA',
  CANCELLED = 'CANCELADA',
}

/** The status of one attempt to settle a recurring charge (`tentativas[].status`). */
export enum AttemptStatus {
  REQUESTED = 'SOLICITADA',
  SCHEDULED = 'AGENDADA',
  PAID = 'PAGA',
  CANCELLED = 'CANCELADA',
  REJECTED = 'REJEITADA',
  EXPIRED = 'EXPIRADA',
}

/** An attempt's kind (`tentativas[].tipo`): scheduled on time, not scheduled, or a retry after the due date. */
export enum AttemptKind {
  SCHEDULED = 'AGND',
  NOT_SCHEDULED = 'NTAG',
  RETRY = 'RIFL',
}

/** Whether a charge may be tried again after its due date (`politicaRetentativa`): never, or 3 retries within 7 days. */
export enum RetryPolicy {
  NONE = 'NAO_PERMITE',
  THREE_IN_SEVEN_DAYS = 'PERMITE_3R_7D',
}

/** Who cancelled a recurrence or a recurring charge (`encerramento.cancelamento.solicitante`). */
export enum CancelledBy {
  PAYER_PROVIDER = 'PSP_PAGADOR',
  PAYER = 'USUARIO_PAGADOR',
  RECEIVER_PROVIDER = 'PSP_RECEBEDOR',
  RECEIVER = 'USUARIO_RECEBEDOR',
}

/** How often a recurrence charges (`calendario.periodicidade`). */
export enum Periodicity {
  WEEKLY = 'SEMANAL',
  MONTHLY = 'MENSAL',
  QUARTERLY = 'TRIMESTRAL',
  SEMIANNUAL = 'SEMESTRAL',
  ANNUAL = 'ANUAL',
}

/** How the payer came to authorize a recurrence (`ativacao.tipoJornada`); `AGUARDANDO_DEFINICAO` until then. */
export enum ActivationJourney {
  /** A notification outside the ecosystem. */
  JOURNEY_1 = 'JORNADA_1',
  /** The recurrence's QR code. */
  JOURNEY_2 = 'JORNADA_2',
  /** A composite QR code, paying an immediate charge (its txid in `dadosJornada`). */
  JOURNEY_3 = 'JORNADA_3',
  /** A composite QR code of a due-date or static charge. */
  JOURNEY_4 = 'JORNADA_4',
  PENDING = 'AGUARDANDO_DEFINICAO',
}

/** Why a payer's provider rejected a recurrence (`encerramento.rejeicao.codigo`). */
export const REC_REJECTION_CODES: readonly string[] = ['AP13', 'AP14'];
/** Why a recurrence was cancelled (`encerramento.cancelamento.codigo`). */
export const REC_CANCELLATION_CODES: readonly string[] = [
  'ACCL',
  'CPCL',
  'DCSD',
  'ERSL',
  'FRUD',
  'PCFD',
  'SLCR',
  'SLDB',
];
/** Why a recurring charge was cancelled. */
export const CHARGE_CANCELLATION_CODES: readonly string[] = ['ACCT', 'BLCK', 'CCLD', 'FAIL', 'OTHR', 'SLBD', 'SLCR'];
/** Why a recurring charge, or one of its attempts, was rejected. */
export const CHARGE_REJECTION_CODES: readonly string[] = [
  'AB10',
  'AC05',
  'AC06',
  'AM02',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'DTNT',
  'FBRD',
  'IRNT',
  'MIDI',
  'MSUC',
  'NIEC',
  'NIPA',
  'NITX',
  'QUNT',
  'RC09',
  'UDEI',
];
/** The attempt rejections that reject the recurring charge itself (the standard lists them with `tentativas[].rejeicao`). */
export const CHARGE_ENDING_ATTEMPT_CODES: readonly string[] = [
  'AC05',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'MIDI',
  'MSUC',
  'NITX',
  'RC09',
];

/** Whether a recurrence's status is final: it changes no more. */
export const isFinalRecStatus = (status: string): boolean =>
  status !== String(RecStatus.CREATED) && status !== String(RecStatus.APPROVED);

/** Whether a recurring charge's status is final. */
export const isFinalRecurringChargeStatus = (status: string): boolean =>
  status !== String(RecurringChargeStatus.CREATED) && status !== String(RecurringChargeStatus.ACTIVE);

/** How the sweep finds Pix Automático's changes whose callbacks were lost. */
export const PixRecurringDefaults = {
  /**
   * Days of creation the recurring charges' listing reads back (`GET /cobr` filters on creation): a
   * charge is sent 2 to 10 business days before its due date, so 14 calendar days reach every
   * charge not yet due. Older days are read a few a sweep, each once a day.
   */
  chargeCreationDays: 14,
  /**
   * Minutes between two re-reads of a recurrence or recurring charge the receiver holds in a
   * non-final state (`GET /rec/{idRec}`, `GET /cobr/{txid}`): once a day, each at a sweep of the
   * day its id picks, so the re-reads spread over the sweeps.
   */
  followUpMinutes: 1440,
} as const;
