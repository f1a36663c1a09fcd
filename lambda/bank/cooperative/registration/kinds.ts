/**
 * This bank's two registrations as the handlers reach them ({@link RegistrationKinds}): the payment
 * callback (spec 4.2) and the boleto webhook contract (spec 4.1). What a custom resource's
 * properties say is read here, every field checked; how each is applied, compared, repaired and
 * removed is the steps' of this folder.
 *
 * Physical ids name what the bank keys the registration by, so a change of account gives a new
 * id and CloudFormation deletes the old one with its old properties:
 *   payment-webhook/<cooperativa>/<conta>
 *   boleto-contract/<cooperativa>/<posto>/<codBeneficiario>/<idContrato>
 */
import type { BankConnectionSettings } from '../../../../contracts/bank-connection';
import { RegistrationDrift } from '../../../../contracts/reconciliation';
import {
  type BoletoContractSpec,
  type PaymentWebhookSpec,
  RegistrationAttribute,
  RegistrationProperty,
  RegistrationResourceType,
  type RegistrationSpec,
  isContract,
  isPixWebhook,
} from '../../../../contracts/registration';
import { readSettings, type SettingsSource } from '../../../shared/settings';
import { tokenMatches } from '../../../shared/token-check';
import { parseBankConnection } from '../connection';
import type {
  ExpectedTokens,
  Registration,
  RegistrationComparison,
  RegistrationKinds,
  RegistrationSteps,
} from '../../family';
import {
  type ContractIdentity,
  contractIdOf,
  createContract,
  deactivateContract,
  findContracts,
  updateContract,
} from './boleto-contract';
import { readPaymentWebhookHeld, registerPaymentWebhook, unregisterPaymentWebhook } from './payment-webhook';
import { checkRegistrableToken } from './registrable-token';
import { type BankCaller, describeUrl, sameUrl, type StepContext } from './steps';

/** The construct that writes each registration's properties. */
const REGISTRATION_CONSTRUCT: Partial<Record<RegistrationResourceType, string>> = {
  [RegistrationResourceType.PAYMENT_WEBHOOK]: 'PaymentWebhookRegistration',
  [RegistrationResourceType.BOLETO_CONTRACT]: 'BoletoWebhookContract',
};

const PAYMENT_PREFIX = 'payment-webhook';
const CONTRACT_PREFIX = 'boleto-contract';

export function paymentWebhookPhysicalId(bank: BankConnectionSettings): string {
  return [PAYMENT_PREFIX, bank.account.cooperativa, bank.account.conta].map(encodeURIComponent).join('/');
}

/** What the bank keys a contract by: its physical id without the contract's id. */
function contractSubject(identity: ContractIdentity): string {
  return [CONTRACT_PREFIX, identity.cooperativa, identity.posto, identity.codBeneficiario]
    .map(encodeURIComponent)
    .join('/');
}

export function contractPhysicalId(identity: ContractIdentity, contractId: string): string {
  return `${contractSubject(identity)}/${encodeURIComponent(contractId)}`;
}

/** The identity and id a contract's physical id names, or undefined for any other id. */
export function parseContractPhysicalId(
  physicalId: string | undefined,
): (ContractIdentity & { id: string }) | undefined {
  const parts = physicalId?.split('/').map(decodeURIComponent);
  if (!parts || parts.length !== 5 || parts[0] !== CONTRACT_PREFIX) return undefined;
  return { cooperativa: parts[1], posto: parts[2], codBeneficiario: parts[3], id: parts[4] };
}

const sameIdentity = (a: ContractIdentity, b: ContractIdentity) =>
  a.cooperativa === b.cooperativa && a.posto === b.posto && a.codBeneficiario === b.codBeneficiario;

/** The bank's connection and the registration a custom resource event carries, checked. */
export function readRegistrationProperties(
  resourceType: string,
  properties: Record<string, unknown>,
): { bank: BankConnectionSettings; spec: RegistrationSpec } {
  const type = resourceType as RegistrationResourceType;
  const setBy = REGISTRATION_CONSTRUCT[type];
  if (!setBy)
    throw new Error(
      `Unknown resource type ${resourceType}: this handler serves ${Object.keys(REGISTRATION_CONSTRUCT).join(' and ')}`,
    );
  const property = (name: string): { raw: string | undefined; source: SettingsSource } => ({
    raw: typeof properties[name] === 'string' ? properties[name] : undefined,
    source: { where: `The custom resource property ${name}`, setBy },
  });
  const bankProperty = property(RegistrationProperty.BANK);
  const bank = parseBankConnection(bankProperty.raw, bankProperty.source);
  const { raw, source } = property(RegistrationProperty.SPEC);
  if (type === RegistrationResourceType.PAYMENT_WEBHOOK) {
    return { bank, spec: readSettings<PaymentWebhookSpec>(raw, source, { strings: ['url', 'tokenSecretArn'] }) };
  }
  return {
    bank,
    spec: readSettings<BoletoContractSpec>(raw, source, {
      strings: ['cooperativa', 'posto', 'codBeneficiario', 'url', 'urlStatus', 'contratoStatus'],
      lists: ['eventos'],
    }),
  };
}

/** How a status the bank holds differs from the one the deploy applied. */
function statusDrift(held: unknown, applied: string): RegistrationDrift | undefined {
  if (held === applied) return undefined;
  if (held === 'ATIVO') return RegistrationDrift.ACTIVE;
  return held === 'BLOQUEADO' ? RegistrationDrift.BLOCKED : RegistrationDrift.INACTIVE;
}

const staleDrift = (tokens: ExpectedTokens) => (tokens.stale ? [RegistrationDrift.STALE_TOKEN] : []);

function paymentRegistration(caller: BankCaller, spec: PaymentWebhookSpec): Registration {
  const physicalId = paymentWebhookPhysicalId(caller.settings);
  const ctx = (steps: RegistrationSteps): StepContext => ({ ...steps, bank: caller });
  return {
    resourceType: RegistrationResourceType.PAYMENT_WEBHOOK,
    spec,
    subject: physicalId,
    plannedPhysicalId: physicalId,
    logged: { cooperativa: caller.settings.account.cooperativa, conta: caller.settings.account.conta },
    checkToken: checkRegistrableToken,
    async apply(steps, change) {
      if (change.current !== undefined && change.current !== physicalId) {
        steps.log.info(
          'The account changed: registering for the new one; CloudFormation then removes the old registration',
          { from: change.current, to: physicalId },
        );
      }
      await registerPaymentWebhook(ctx(steps), spec, change.previousUrl);
      return { physicalResourceId: physicalId, data: { [RegistrationAttribute.URL]: spec.url } };
    },
    async remove(steps, current) {
      if (current !== physicalId) return undefined;
      return `Payment callback: ${await unregisterPaymentWebhook(ctx(steps), spec)}`;
    },
    async compare(steps, tokens): Promise<RegistrationComparison> {
      const held = await readPaymentWebhookHeld(ctx(steps));
      if (!held.url) return { drift: [RegistrationDrift.MISSING, ...staleDrift(tokens)], held: 'nothing' };
      if (!sameUrl(held.url, spec.url))
        return { drift: [RegistrationDrift.OTHER_URL, ...staleDrift(tokens)], held: describeUrl(held.url) };
      const tokenDrift =
        tokens.accepted.length && !tokenMatches(held.token ?? undefined, tokens.accepted)
          ? [RegistrationDrift.TOKEN]
          : [];
      return { drift: [...tokenDrift, ...staleDrift(tokens)], held: describeUrl(held.url) };
    },
    repair: (steps) => registerPaymentWebhook(ctx(steps), spec),
  };
}

function contractRegistration(caller: BankCaller, spec: BoletoContractSpec): Registration {
  const ctx = (steps: RegistrationSteps): StepContext => ({ ...steps, bank: caller });
  return {
    resourceType: RegistrationResourceType.BOLETO_CONTRACT,
    spec,
    subject: contractSubject(spec),
    logged: { cooperativa: spec.cooperativa, posto: spec.posto, codBeneficiario: spec.codBeneficiario },
    checkToken: checkRegistrableToken,
    async apply(steps, change) {
      const current = parseContractPhysicalId(change.current);
      const result =
        current && sameIdentity(current, spec)
          ? await updateContract(ctx(steps), current.id, spec)
          : await createContract(ctx(steps), spec);
      return {
        physicalResourceId: contractPhysicalId(spec, result.id),
        data: {
          [RegistrationAttribute.CONTRACT_ID]: result.id,
          [RegistrationAttribute.ADOPTED]: String(result.adopted),
          [RegistrationAttribute.URL]: spec.url,
        },
      };
    },
    async remove(steps, physicalResourceId) {
      const current = parseContractPhysicalId(physicalResourceId);
      if (!current) return undefined;
      return `Boleto webhook contract: ${await deactivateContract(ctx(steps), current.id, { ...spec, ...current })} (contract ${current.id})`;
    },
    async compare(steps, tokens): Promise<RegistrationComparison> {
      const [held] = await findContracts(ctx(steps), spec);
      if (!held) {
        // A contract the deploy paused that the bank no longer holds sends nothing either way.
        const paused = spec.contratoStatus !== 'ATIVO' && spec.urlStatus !== 'ATIVO';
        return { drift: paused ? [] : [RegistrationDrift.MISSING, ...staleDrift(tokens)], held: 'nothing' };
      }
      const drift: RegistrationDrift[] = [];
      if (!sameUrl(held.url, spec.url)) drift.push(RegistrationDrift.OTHER_URL);
      for (const field of ['contratoStatus', 'urlStatus'] as const) {
        const d = statusDrift(held[field], spec[field]);
        if (d) drift.push(d);
      }
      if (!drift.includes(RegistrationDrift.OTHER_URL) && tokens.accepted.length) {
        if (!tokenMatches(typeof held.token === 'string' ? held.token : undefined, tokens.accepted))
          drift.push(RegistrationDrift.TOKEN);
      }
      return {
        drift: [...new Set([...drift, ...staleDrift(tokens)])],
        held: `contract ${contractIdOf(held) ?? '(no id)'} at ${describeUrl(held.url)}`,
      };
    },
    repair: async (steps) => {
      await createContract(ctx(steps), spec);
    },
  };
}

/** Whether a spec is one of this bank's registrations (a Pix key's webhook names its key). */
const isBankSpec = (spec: RegistrationSpec): spec is PaymentWebhookSpec | BoletoContractSpec => !isPixWebhook(spec);

function bind(caller: BankCaller, spec: RegistrationSpec): Registration {
  if (!isBankSpec(spec)) throw new Error("a Pix webhook is not one of this bank's registrations");
  return isContract(spec) ? contractRegistration(caller, spec) : paymentRegistration(caller, spec);
}

/**
 * This bank's registrations, bound to a client per connection: `bankFor` gives the deploy-time
 * provider's client for a resource's connection, and the watch's own for what the stack deployed
 * (`deployedConnection`).
 */
export function cooperativeRegistrations(
  bankFor: (settings: BankConnectionSettings) => BankCaller,
  deployedConnection?: BankConnectionSettings,
): RegistrationKinds {
  return {
    resourceTypes: [RegistrationResourceType.PAYMENT_WEBHOOK, RegistrationResourceType.BOLETO_CONTRACT],
    ownsSpec: isBankSpec,
    fromProperties(resourceType, properties) {
      const { bank, spec } = readRegistrationProperties(resourceType, properties);
      return bind(bankFor(bank), spec);
    },
    fromDeployed(spec) {
      if (!deployedConnection) throw new Error('No bank connection was given for the registrations the stack deployed');
      return bind(bankFor(deployedConnection), spec);
    },
  };
}
