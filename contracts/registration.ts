/**
 * The contract between the registration constructs (`PaymentWebhookRegistration`,
 * `BoletoWebhookContract`) and the registration handler: resource types, the custom resource's
 * properties and attributes, defaults and time limits. Both sides import this module.
 *
 * The properties hold only non-secret settings and secret ARNs. The bank connection and the
 * registration itself travel as JSON strings, because CloudFormation turns every number and
 * boolean of a custom resource's properties into a string.
 */

import { PAYMENTS_TOKEN_HEADER } from './receiver';

export enum RegistrationResourceType {
  PAYMENT_WEBHOOK = 'Custom::BankPaymentWebhookRegistration',
  BOLETO_CONTRACT = 'Custom::BankBoletoWebhookContract',
}

/** Names of the custom resource's properties. */
export const RegistrationProperty = {
  /** JSON of {@link BankConnectionSettings}. */
  BANK: 'BankConnection',
  /** JSON of {@link PaymentWebhookSpec} or {@link BoletoContractSpec}. */
  SPEC: 'Registration',
  /** Changes when the token's value changes, so that a rotation re-registers (see `tokenVersion`). */
  TOKEN_VERSION: 'TokenVersion',
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
