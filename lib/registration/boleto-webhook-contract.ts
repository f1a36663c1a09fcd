import { type CustomResource, Token } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import {
  type BoletoContractSpec,
  compactDeployed,
  RegistrationAttribute,
  RegistrationDefaults,
  RegistrationResourceType,
} from '../../contracts/registration';
import { ACCOUNT_FIELD_PATTERN, type BankAccount } from '../../contracts/bank-connection';
import { type CooperativeConnectionProps, validateBankConnection } from '../families/cooperative/connection';
import { checkSecretNamed, checkTokenHeader, type PropsValidation, validateProps } from '../core/props-validation';
import {
  appliedRecordNameOf,
  checkRegistrationOptions,
  checkWebhookUrl,
  createRegistrationResource,
  type RegistrationEntryProviderSettings,
  type RegistrationOptions,
} from './registration-resource';
import type { RegistrationProviderSettings } from '../core/registration-provider';
import type { WatchedRegistration } from '../../contracts/reconciliation';

/** Status of a boleto webhook contract and of its URL (spec 2.1). */
export enum BoletoContractStatus {
  /** Notifications are sent. */
  ATIVO = 'ATIVO',
  /** Switched off. */
  INATIVO = 'INATIVO',
  /** Blocked (usually the bank's doing). */
  BLOQUEADO = 'BLOQUEADO',
}

/**
 * The fields of a boleto webhook contract (spec 2.1) other than the URL and the token, and the
 * registration's own options: what a contract is, in a receiver and standalone alike.
 */
export interface BoletoContractFields extends RegistrationOptions {
  /**
   * Cooperative of the contract (`cooperativa`).
   * @default - bank.account.cooperativa
   */
  readonly cooperativa?: string;
  /**
   * Branch of the contract (`posto`).
   * @default - bank.account.posto
   */
  readonly posto?: string;
  /**
   * Beneficiary code of the contract (the bank's `codBeneficiario`), spelled as the account's
   * (`bank.account.codigoBeneficiario`), which it must equal.
   * @default - bank.account.codigoBeneficiario
   */
  readonly codigoBeneficiario?: string;
  /**
   * The same as `codigoBeneficiario`, spelled as the bank's contract API spells it.
   * @deprecated use `codigoBeneficiario` (one spelling for the account and the contract); removed in 1.0
   * @default - bank.account.codigoBeneficiario
   */
  readonly codBeneficiario?: string;
  /**
   * Events subscribed to (`eventos`).
   * @default ['LIQUIDACAO']
   */
  readonly eventos?: string[];
  /**
   * Status the contract is put in (`contratoStatus`).
   * @default BoletoContractStatus.ATIVO
   */
  readonly contratoStatus?: BoletoContractStatus;
  /**
   * Status the contract's URL is put in (`urlStatus`).
   * @default BoletoContractStatus.ATIVO
   */
  readonly urlStatus?: BoletoContractStatus;
  /**
   * Name of the person responsible (`nomeResponsavel`).
   * @default - not sent
   */
  readonly nomeResponsavel?: string;
  /**
   * Contact e-mail (`email`).
   * @default - not sent
   */
  readonly email?: string;
  /**
   * Contact telephone (`telefone`): digits, with an optional leading +, spaces, hyphens and parentheses.
   * @default - not sent
   */
  readonly telefone?: string;
  /**
   * Whether the bank includes the company's title id (`idTituloEmpresa`) in events (`enviarIdTituloEmpresa`).
   * @default - not sent (the bank's default applies)
   */
  readonly enviarIdTituloEmpresa?: boolean;
}

/**
 * A contract as `BankWebhookReceiver` takes it in `boletoContracts`: its fields; the provider's
 * settings it once took are the receiver's own (deprecated here).
 */

export interface BoletoWebhookContractOptions extends BoletoContractFields, RegistrationEntryProviderSettings {}

/** Properties of {@link BoletoWebhookContract}. */
export interface BoletoWebhookContractProps extends BoletoContractFields, RegistrationProviderSettings {
  /** How to reach the bank (the collection API's token acts for `bank.account`). */
  readonly bank: CooperativeConnectionProps;
  /** The https URL the bank sends boleto events to (`url`). */
  readonly url: string;
  /**
   * Secret whose plain-text value is the contract's `token`, sent in the header named by `header`.
   * @default - no token: the endpoint must protect itself otherwise
   */
  readonly token?: secretsmanager.ISecret;
  /**
   * Name of the header the bank sends the token in (`header`). Needs `token`.
   * @default 'Authorization' when token is set
   */
  readonly header?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TELEPHONE = /^\+?[\d\s()-]{8,20}$/;
const EVENT = /^[A-Z][A-Z0-9_]*$/;

function checkBoletoWebhookContract(v: PropsValidation, props: BoletoWebhookContractProps): void {
  validateBankConnection(v, props.bank, 'bank');
  checkWebhookUrl(v, props.url, 'url');
  checkContractOptions(v, props, '', props.bank?.account);
  checkSecretNamed(v, props.token, 'token');
  checkTokenHeader(v, props.header, 'header');
  v.check(
    !(props.header !== undefined && !props.token),
    'header',
    'only applies with token: set token (the secret the bank sends in this header), or remove header',
  );
}

/**
 * Checks the contract fields; `prefix` names where they sit (such as `boletoContracts[0].`). The
 * collection credentials act for one beneficiary (`account.codigoBeneficiario`): a contract for
 * another could never have its settlements verified, so it is refused.
 */
export function checkContractOptions(
  v: PropsValidation,
  o: BoletoWebhookContractOptions,
  prefix: string,
  account?: BankAccount,
): void {
  checkRegistrationOptions(v, o, prefix);
  const literal = (value: string | undefined): value is string => value !== undefined && !Token.isUnresolved(value);
  const ours = account?.codigoBeneficiario;
  v.check(
    o.codigoBeneficiario === undefined || o.codBeneficiario === undefined,
    `${prefix}codBeneficiario`,
    'is the deprecated spelling of codigoBeneficiario, which is set too: keep codigoBeneficiario alone',
  );
  const [key, given] =
    o.codigoBeneficiario !== undefined
      ? ['codigoBeneficiario', o.codigoBeneficiario]
      : ['codBeneficiario', o.codBeneficiario];
  if (literal(given) && typeof ours === 'string' && !Token.isUnresolved(ours)) {
    v.check(
      given === ours,
      `${prefix}${key}`,
      `is "${given}", but the bank credentials act for beneficiary "${ours}" (bank.account.codigoBeneficiario): the processor could never verify its boletos. Leave ${key} out, or deploy another receiver with that beneficiary's account and credentials`,
    );
  }
  for (const key of ['cooperativa', 'posto', 'codigoBeneficiario', 'codBeneficiario'] as const) {
    const value = o[key];
    if (literal(value))
      v.check(
        ACCOUNT_FIELD_PATTERN.test(value),
        `${prefix}${key}`,
        `must be 1 to 20 letters, digits or hyphens, got "${value}"`,
      );
  }
  if (o.eventos !== undefined) {
    v.check(
      o.eventos.length > 0,
      `${prefix}eventos`,
      'must name at least one event, such as ["LIQUIDACAO"]; leave it out for the default',
    );
    const bad = o.eventos.filter((e) => literal(e) && !EVENT.test(e));
    v.check(
      bad.length === 0,
      `${prefix}eventos`,
      `must be event names in capitals, such as LIQUIDACAO; not valid: ${bad.map((e) => `"${e}"`).join(', ')}`,
    );
    v.check(new Set(o.eventos).size === o.eventos.length, `${prefix}eventos`, 'must not repeat an event');
  }
  if (literal(o.email))
    v.check(
      EMAIL.test(o.email),
      `${prefix}email`,
      `must be an e-mail address such as finance@example.com, got "${o.email}"`,
    );
  if (literal(o.telefone)) {
    const digits = o.telefone.replace(/\D/g, '').length;
    v.check(
      TELEPHONE.test(o.telefone) && digits >= 8,
      `${prefix}telefone`,
      `must be a telephone number such as +55 11 3003-0000 (8 to 20 digits, spaces, hyphens, parentheses), got "${o.telefone}"`,
    );
  }
  if (literal(o.nomeResponsavel)) {
    v.check(
      o.nomeResponsavel.trim().length > 0 && o.nomeResponsavel.length <= 100,
      `${prefix}nomeResponsavel`,
      `must be 1 to 100 characters, got ${o.nomeResponsavel.length}`,
    );
  }
  for (const key of ['contratoStatus', 'urlStatus'] as const) {
    const value = o[key];
    if (value !== undefined)
      v.check(
        Object.values(BoletoContractStatus).includes(value),
        `${prefix}${key}`,
        `must be ATIVO, INATIVO or BLOQUEADO, got "${value}"`,
      );
  }
}

/** The contract's beneficiary as given, whichever spelling (`codigoBeneficiario`, or the deprecated `codBeneficiario`). */
export const contractBeneficiario = (o: BoletoWebhookContractOptions): string | undefined =>
  o.codigoBeneficiario ?? o.codBeneficiario;

/** The contract as the handler gets it: every field filled in, the token as its secret's ARN. */
export function boletoContractSpec(
  bank: CooperativeConnectionProps,
  o: BoletoWebhookContractOptions,
  url: string,
  token?: secretsmanager.ISecret,
  header?: string,
): BoletoContractSpec {
  return {
    ...(o.takeOverExisting ? { takeOverExisting: true } : {}),
    cooperativa: o.cooperativa ?? bank.account.cooperativa,
    posto: o.posto ?? bank.account.posto,
    codBeneficiario: contractBeneficiario(o) ?? bank.account.codigoBeneficiario,
    eventos: o.eventos ?? [...RegistrationDefaults.eventos],
    url,
    urlStatus: o.urlStatus ?? RegistrationDefaults.status,
    contratoStatus: o.contratoStatus ?? RegistrationDefaults.status,
    nomeResponsavel: o.nomeResponsavel,
    email: o.email,
    telefone: o.telefone,
    enviarIdTituloEmpresa: o.enviarIdTituloEmpresa,
    header: token ? (header ?? RegistrationDefaults.header) : undefined,
    tokenSecretArn: token?.secretArn,
  };
}

/**
 * The boleto webhook contract (POST/GET/PUT `{base_url}/cobranca/boleto/v1/webhook/contrato(s)`)
 * as a custom resource. Create adopts the contract the bank already holds for the
 * cooperativa/posto/beneficiário (PUT) or makes one (POST); update PUTs the whole contract;
 * delete switches it off (`contratoStatus` and `urlStatus` INATIVO), only while its URL is still
 * this one. The token is read from its secret by the handler and never appears in the template.
 */
export class BoletoWebhookContract extends Construct {
  /** The custom resource. */
  public readonly resource: CustomResource;
  /** The URL in the contract. */
  public readonly url: string;
  /** The secret holding the contract's token, when it has one. */
  public readonly token?: secretsmanager.ISecret;
  /**
   * The SSM parameter where each deploy records what it applied at the bank (no secret: the token
   * by its secret's version id); the registration watch compares the bank with it.
   */
  public readonly appliedRecordName: string;
  /** @internal What the registration watch reads of it. */
  public readonly _watched: WatchedRegistration;

  constructor(scope: Construct, id: string, props: BoletoWebhookContractProps) {
    super(scope, id);
    validateProps(this.node.path, 'BoletoWebhookContract', props, checkBoletoWebhookContract);
    this.url = props.url;
    this.token = props.token;
    const spec = boletoContractSpec(props.bank, props, props.url, props.token, props.header);
    this.resource = createRegistrationResource(this, {
      ...props,
      resourceType: RegistrationResourceType.BOLETO_CONTRACT,
      spec,
    });
    this.appliedRecordName = appliedRecordNameOf(this);
    this._watched = {
      label: `boleto ${spec.cooperativa}/${spec.posto}/${spec.codBeneficiario}`,
      appliedRecord: this.appliedRecordName,
      deployed: compactDeployed(spec),
    };
  }

  /** The contract's id at the bank (`idContrato`). */
  public get contractId(): string {
    return this.resource.getAttString(RegistrationAttribute.CONTRACT_ID);
  }
}
