/**
 * The contract between the registration constructs (`PaymentWebhookRegistration`,
 * `BoletoWebhookContract`) and the registration handler: resource types, the custom resource's
 * properties and attributes, defaults and time limits. Both sides import this module.
 *
 * The properties hold only non-secret settings and secret ARNs. The bank connection and the
 * registration itself travel as JSON strings, because CloudFormation turns every number and
 * boolean of a custom resource's properties into a string.
 */

import { createHash } from 'node:crypto';
import { PAYMENTS_TOKEN_HEADER } from './receiver';

export enum RegistrationResourceType {
  PAYMENT_WEBHOOK = 'Custom::BankPaymentWebhookRegistration',
  BOLETO_CONTRACT = 'Custom::BankBoletoWebhookContract',
  /** A Pix key's webhook at the standard Pix API (`PUT /webhook/{chave}`). */
  PIX_KEY_WEBHOOK = 'Custom::BankPixKeyWebhook',
  /** One of the account's Pix Automático webhooks at the standard Pix API (`PUT /webhookrec`, `PUT /webhookcobr`). */
  PIX_ACCOUNT_WEBHOOK = 'Custom::BankPixAccountWebhook',
}

/** Names of the custom resource's properties. */
export const RegistrationProperty = {
  /** JSON of {@link BankConnectionSettings}. */
  BANK: 'BankConnection',
  /** JSON of {@link PaymentWebhookSpec} or {@link BoletoContractSpec}. */
  SPEC: 'Registration',
  /** Changes when the token's value changes, so that a rotation re-registers (see `tokenVersion`). */
  TOKEN_VERSION: 'TokenVersion',
  /** The SSM parameter the handler records what it applied in ({@link AppliedRegistration}); see {@link appliedRecordName}. */
  APPLIED_RECORD: 'AppliedRecord',
  /** JSON of the Pix connection's settings (contracts/pix-connection.ts), for a Pix key's webhook instead of `BANK`. */
  PIX: 'PixConnection',
} as const;

/** Attributes the handler returns (`Data`); none is secret. */
export enum RegistrationAttribute {
  /** The URL the bank now holds. */
  URL = 'Url',
  /** The boleto contract's id at the bank. */
  CONTRACT_ID = 'ContractId',
  /** "true" when the contract existed at the bank and was adopted rather than created. */
  ADOPTED = 'Adopted',
}

/** Statuses of a contract and of its URL (spec 2.1). */
export const CONTRACT_STATUSES = ['ATIVO', 'INATIVO', 'BLOQUEADO'] as const;
export type ContractStatusValue = (typeof CONTRACT_STATUSES)[number];

/** The payment callback registration (spec 2.2). */
export interface PaymentWebhookSpec {
  /** `urlCallback`. */
  readonly url: string;
  /** Secret whose plain-text value is `authorizationCallback`. */
  readonly tokenSecretArn: string;
  /** Replace a registration of another URL the bank holds (absent: refuse to). */
  readonly takeOverExisting?: boolean;
}

/**
 * One of the account's Pix Automático webhooks at the standard Pix API (one each per user, no key):
 * `rec` (`PUT /webhookrec`, called at the URL with `/rec` appended) or `cobr` (`PUT /webhookcobr`,
 * `/cobr` appended).
 */
export interface PixAccountWebhookSpec {
  /** `rec` or `cobr` (contracts/pix-recurring.ts RecurringWebhookKind). */
  readonly accountWebhook: string;
  /** `webhookUrl`: without `/rec` or `/cobr` and without a trailing slash (the Pix API's URL). */
  readonly url: string;
  /** Replace another party's URL the provider holds for the webhook (absent: refuse to). */
  readonly takeOverExisting?: boolean;
  /** None: the callbacks carry no token. */
  readonly tokenSecretArn?: undefined;
}

/** A Pix key's webhook at the standard Pix API: the key, and the URL the provider calls with `/pix` appended. */
export interface PixKeyWebhookSpec {
  /** The key (DICT form). */
  readonly chave: string;
  /** `webhookUrl`: without `/pix` and without a trailing slash. */
  readonly url: string;
  /** Replace another party's URL the provider holds for the key (absent: refuse to). */
  readonly takeOverExisting?: boolean;
  /** None: the Pix callback carries no token. */
  readonly tokenSecretArn?: undefined;
}

/** The boleto webhook contract (spec 2.1), with the token as a secret ARN. */
export interface BoletoContractSpec {
  /** Adopt a contract of another URL the bank holds (absent: refuse to). */
  readonly takeOverExisting?: boolean;
  readonly cooperativa: string;
  readonly posto: string;
  readonly codBeneficiario: string;
  readonly eventos: readonly string[];
  readonly url: string;
  readonly urlStatus: ContractStatusValue;
  readonly contratoStatus: ContractStatusValue;
  readonly nomeResponsavel?: string;
  readonly email?: string;
  readonly telefone?: string;
  readonly enviarIdTituloEmpresa?: boolean;
  /** Name of the header the bank sends `token` in. */
  readonly header?: string;
  /** Secret whose plain-text value is the contract's `token`. */
  readonly tokenSecretArn?: string;
}

export const RegistrationDefaults = {
  eventos: ['LIQUIDACAO'],
  status: 'ATIVO' as ContractStatusValue,
  /** The header the token travels in when a token is given without one. */
  header: PAYMENTS_TOKEN_HEADER,
  /** The registration function's timeout: every bank call and retry of one operation fits in it. */
  functionTimeoutSeconds: 120,
  /** Time kept free at the end of an invocation to report a clear failure. */
  safetyMarginMs: 10_000,
  /**
   * How long CloudFormation waits for the custom resource before failing it (its
   * `ServiceTimeout`): the function's timeout, plus the provider framework's own calls.
   */
  serviceTimeoutSeconds: 300,
} as const;

/** The path every applied-registration record sits under (an SSM parameter hierarchy). */
export const APPLIED_RECORD_PREFIX = '/cdk-bank-webhooks/applied';

/**
 * The SSM parameter that records what a registration's last successful deploy applied:
 * `/cdk-bank-webhooks/applied/<stack name>/<registration's unique construct id>`. The construct
 * names it (a custom resource property), the provider writes it, the registration watch reads it.
 */
export function appliedRecordName(stackName: string, registrationId: string): string {
  return `${APPLIED_RECORD_PREFIX}/${stackName}/${registrationId}`;
}

/**
 * What a registration's last Create or Update applied at the bank, as the provider records it
 * (never in the custom resource's response): the registration as registered, with the token named
 * by its secret and the version whose value was sent, never the value. Written before the bank is
 * changed (a deploy that cannot record changes nothing) and again with the contract's id once the
 * bank confirmed; a failed change is rolled back by CloudFormation with an Update that records the
 * old values again. The registration watch compares the bank with it, and repairs only to it and
 * only while the stack is in a completed state.
 */
export interface AppliedRegistration {
  /** The record's format. */
  readonly format: 1;
  readonly resourceType: RegistrationResourceType;
  /** When the deploy applied it (ISO 8601). */
  readonly appliedAt: string;
  /** The CloudFormation request that applied it. */
  readonly requestId: string;
  /** What the bank keys the registration by (the physical id without a contract's id). */
  readonly subject: string;
  /** The custom resource's physical id, once known (a new contract's id comes from the bank). */
  readonly physicalResourceId?: string;
  readonly spec: RegistrationSpec;
  /** The version of the token secret whose value was registered (absent: no token). */
  readonly tokenVersionId?: string;
  /** The stack whose deploy wrote it (its ARN; absent in records of earlier releases). */
  readonly stackId?: string;
}

/** The contract's fields that only say whom the bank may contact: the watch takes them from the record. */
export const CONTACT_FIELDS = ['nomeResponsavel', 'email', 'telefone'] as const;

/**
 * What a registration must be, as the stack deployed it (known at synth): everything but the
 * contract's contact fields, which it names by a digest ({@link contactDigest}). The sweep's
 * settings carry it (`WatchedRegistration.deployed`) with defaults left out
 * ({@link compactDeployed}) to keep within Lambda's 4 KB of environment; the watch compares the
 * bank with it and repairs only to it.
 */
export type DeployedRegistration =
  | PaymentWebhookSpec
  | PixKeyWebhookSpec
  | PixAccountWebhookSpec
  | (Omit<BoletoContractSpec, (typeof CONTACT_FIELDS)[number]> & {
      /** The contact fields' digest; `*` when one is only known at deploy time (not checked); absent when there are none. */
      readonly contact?: string;
    });

/** Whether a registration (as deployed, or a record's spec) is a Pix key's webhook. */
export const isPixKeyWebhook = (spec: RegistrationSpec | DeployedRegistration): spec is PixKeyWebhookSpec =>
  'chave' in spec;

/** Whether a registration (as deployed, or a record's spec) is one of the account's Pix Automático webhooks. */
export const isPixAccountWebhook = (spec: RegistrationSpec | DeployedRegistration): spec is PixAccountWebhookSpec =>
  'accountWebhook' in spec;

/** Whether a registration is at the standard Pix API (a key's webhook, or one of the account's), not at this bank's APIs. */
export const isPixWebhook = (
  spec: RegistrationSpec | DeployedRegistration,
): spec is PixKeyWebhookSpec | PixAccountWebhookSpec => isPixKeyWebhook(spec) || isPixAccountWebhook(spec);

/**
 * The contact fields of a contract as a short digest (SHA-256, 16 hex digits), so the watch can
 * hold a record's contact fields to the ones the stack deployed without carrying them; `*` when
 * one is a deploy-time token; undefined when the contract has none.
 */
export function contactDigest(spec: Partial<BoletoContractSpec>): string | undefined {
  const values = CONTACT_FIELDS.map((field) => spec[field]);
  if (values.every((value) => value === undefined)) return undefined;
  if (values.some((value) => typeof value === 'string' && value.includes('${Token['))) return '*';
  return createHash('sha256')
    .update(JSON.stringify(values.map((value) => value ?? null)))
    .digest('hex')
    .slice(0, 16);
}

/** A registration's spec, as a custom resource carries it and a record holds it. */
export type RegistrationSpec = PaymentWebhookSpec | BoletoContractSpec | PixKeyWebhookSpec | PixAccountWebhookSpec;

/** Whether a registration (as deployed, or a record's spec) is a boleto contract rather than the payment callback. */
export const isContract = (spec: RegistrationSpec | DeployedRegistration): spec is BoletoContractSpec =>
  'codBeneficiario' in spec;

/** The registration without its contact fields and without what equals its default (`takeOverExisting` false, `eventos`, ATIVO, the token header). */
export function compactDeployed(spec: RegistrationSpec): DeployedRegistration {
  if (isPixKeyWebhook(spec))
    return { chave: spec.chave, url: spec.url, ...(spec.takeOverExisting ? { takeOverExisting: true } : {}) };
  if (isPixAccountWebhook(spec))
    return {
      accountWebhook: spec.accountWebhook,
      url: spec.url,
      ...(spec.takeOverExisting ? { takeOverExisting: true } : {}),
    };
  if (!isContract(spec))
    return {
      url: spec.url,
      tokenSecretArn: spec.tokenSecretArn,
      ...(spec.takeOverExisting ? { takeOverExisting: true } : {}),
    };
  const {
    nomeResponsavel: _n,
    email: _e,
    telefone: _t,
    takeOverExisting,
    eventos,
    urlStatus,
    contratoStatus,
    header,
    ...rest
  } = spec;
  const defaultEvents = JSON.stringify(eventos) === JSON.stringify(RegistrationDefaults.eventos);
  const contact = contactDigest(spec);
  return {
    ...rest,
    ...(contact ? { contact } : {}),
    ...(takeOverExisting ? { takeOverExisting: true } : {}),
    ...(defaultEvents ? {} : { eventos }),
    ...(urlStatus === RegistrationDefaults.status ? {} : { urlStatus }),
    ...(contratoStatus === RegistrationDefaults.status ? {} : { contratoStatus }),
    ...(header === undefined || (spec.tokenSecretArn && header === RegistrationDefaults.header) ? {} : { header }),
  } as DeployedRegistration;
}

/** The registration {@link compactDeployed} left out defaults of, every field filled (contact fields from `contact`, a record's). */
export function expandDeployed(
  deployed: DeployedRegistration,
  contact: Partial<BoletoContractSpec> = {},
): RegistrationSpec {
  if (isPixKeyWebhook(deployed))
    return {
      chave: deployed.chave,
      url: deployed.url,
      ...(deployed.takeOverExisting ? { takeOverExisting: true } : {}),
    };
  if (isPixAccountWebhook(deployed))
    return {
      accountWebhook: deployed.accountWebhook,
      url: deployed.url,
      ...(deployed.takeOverExisting ? { takeOverExisting: true } : {}),
    };
  if (!isContract(deployed)) {
    const p = deployed as PaymentWebhookSpec;
    return { url: p.url, tokenSecretArn: p.tokenSecretArn, ...(p.takeOverExisting ? { takeOverExisting: true } : {}) };
  }
  const d = deployed as Partial<BoletoContractSpec> &
    Pick<BoletoContractSpec, 'cooperativa' | 'posto' | 'codBeneficiario' | 'url'>;
  const contactFields = Object.fromEntries(
    CONTACT_FIELDS.filter((f) => contact[f] !== undefined).map((f) => [f, contact[f]]),
  );
  return {
    ...(d.takeOverExisting ? { takeOverExisting: true } : {}),
    cooperativa: d.cooperativa,
    posto: d.posto,
    codBeneficiario: d.codBeneficiario,
    eventos: d.eventos ?? [...RegistrationDefaults.eventos],
    url: d.url,
    urlStatus: d.urlStatus ?? RegistrationDefaults.status,
    contratoStatus: d.contratoStatus ?? RegistrationDefaults.status,
    ...contactFields,
    ...(d.enviarIdTituloEmpresa !== undefined ? { enviarIdTituloEmpresa: d.enviarIdTituloEmpresa } : {}),
    ...(d.tokenSecretArn
      ? { header: d.header ?? RegistrationDefaults.header, tokenSecretArn: d.tokenSecretArn }
      : d.header
        ? { header: d.header }
        : {}),
  };
}
