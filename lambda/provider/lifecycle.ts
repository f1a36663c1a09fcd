/**
 * The custom resource lifecycle (the provider framework's onEvent): Create, Update and Delete of
 * a payment callback registration or a boleto webhook contract.
 *
 * Physical ids name what the bank keys the registration by, so a change of account gives a new
 * id and CloudFormation deletes the old one with its old properties:
 *   payment-webhook/<cooperativa>/<conta>
 *   boleto-contract/<cooperativa>/<posto>/<codBeneficiario>/<idContrato>
 * A rollback is an Update with the old properties, so it registers the old values again.
 */
import type { BankConnectionSettings } from '../../contracts/bank-connection';
import { secrets } from '../shared/redaction';
import { sleep } from '../shared/retry';
import { type BoletoContractSpec, type PaymentWebhookSpec, RegistrationAttribute } from '../../contracts/registration';
import { readRegistrationProperties } from './settings';
import type { BankCaller, StepContext } from '../bank/registration/steps';
import { errorMessage, type Log } from '../shared/runtime';
import { type ContractIdentity, createContract, deactivateContract, updateContract } from '../bank/registration/boleto-contract';
import { registerPaymentWebhook, unregisterPaymentWebhook } from '../bank/registration/payment-webhook';

/** The event the provider framework passes to onEvent. */
export interface CustomResourceEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceType: string;
  readonly ResourceProperties: Record<string, unknown>;
  readonly OldResourceProperties?: Record<string, unknown>;
  readonly PhysicalResourceId?: string;
  readonly LogicalResourceId: string;
  readonly RequestId: string;
  readonly StackId: string;
}

export interface CustomResourceResult {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

export interface LifecycleDeps {
  /** A bank client for a connection (the same one for the same settings). */
  readonly bankFor: (settings: BankConnectionSettings) => BankCaller;
  readonly tokenValue: (secretArn: string) => Promise<string>;
  readonly log: Log;
  readonly deadline: number;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

const PAYMENT_PREFIX = 'payment-webhook';
const CONTRACT_PREFIX = 'boleto-contract';

export function paymentWebhookPhysicalId(bank: BankConnectionSettings): string {
  return [PAYMENT_PREFIX, bank.account.cooperativa, bank.account.conta].map(encodeURIComponent).join('/');
}

export function contractPhysicalId(identity: ContractIdentity, contractId: string): string {
  return [CONTRACT_PREFIX, identity.cooperativa, identity.posto, identity.codBeneficiario, contractId].map(encodeURIComponent).join('/');
}

/** The identity and id a contract's physical id names, or undefined for any other id. */
export function parseContractPhysicalId(physicalId: string | undefined): (ContractIdentity & { id: string }) | undefined {
  const parts = physicalId?.split('/').map(decodeURIComponent);
  if (!parts || parts.length !== 5 || parts[0] !== CONTRACT_PREFIX) return undefined;
  return { cooperativa: parts[1], posto: parts[2], codBeneficiario: parts[3], id: parts[4] };
}

const sameIdentity = (a: ContractIdentity, b: ContractIdentity) =>
  a.cooperativa === b.cooperativa && a.posto === b.posto && a.codBeneficiario === b.codBeneficiario;

/** An update's previous URL (ours, so never "another party's"), when its old properties can be read. */
function previousSpecUrl(event: CustomResourceEvent): string | undefined {
  try {
    return event.OldResourceProperties ? readRegistrationProperties(event.ResourceType, event.OldResourceProperties).spec.url : undefined;
  } catch {
    return undefined;
  }
}

async function paymentLifecycle(event: CustomResourceEvent, ctx: StepContext, bank: BankConnectionSettings, spec: PaymentWebhookSpec): Promise<CustomResourceResult> {
  const physicalId = paymentWebhookPhysicalId(bank);
  if (event.RequestType === 'Delete') {
    const current = event.PhysicalResourceId!;
    if (current !== physicalId) {
      ctx.log.warn('Not a registration this handler made: nothing to remove', { physicalResourceId: current });
    } else {
      const outcome = await unregisterPaymentWebhook(ctx, spec);
      ctx.log.info(`Payment callback: ${outcome}`, { url: spec.url });
    }
    return { PhysicalResourceId: current };
  }
  if (event.RequestType === 'Update' && event.PhysicalResourceId !== physicalId) {
    ctx.log.info('The account changed: registering for the new one; CloudFormation then removes the old registration', { from: event.PhysicalResourceId, to: physicalId });
  }
  await registerPaymentWebhook(ctx, spec, event.RequestType === 'Update' ? previousSpecUrl(event) : undefined);
  return { PhysicalResourceId: physicalId, Data: { [RegistrationAttribute.URL]: spec.url } };
}

async function contractLifecycle(event: CustomResourceEvent, ctx: StepContext, spec: BoletoContractSpec): Promise<CustomResourceResult> {
  const current = parseContractPhysicalId(event.PhysicalResourceId);
  if (event.RequestType === 'Delete') {
    if (!current) {
      ctx.log.warn('Not a contract this handler made: nothing to deactivate', { physicalResourceId: event.PhysicalResourceId });
    } else {
      const outcome = await deactivateContract(ctx, current.id, { ...spec, ...current });
      ctx.log.info(`Boleto webhook contract: ${outcome}`, { contractId: current.id, url: spec.url });
    }
    return { PhysicalResourceId: event.PhysicalResourceId! };
  }
  const result = event.RequestType === 'Update' && current && sameIdentity(current, spec)
    ? await updateContract(ctx, current.id, spec)
    : await createContract(ctx, spec);
  return {
    PhysicalResourceId: contractPhysicalId(spec, result.id),
    Data: { [RegistrationAttribute.CONTRACT_ID]: result.id, [RegistrationAttribute.ADOPTED]: String(result.adopted), [RegistrationAttribute.URL]: spec.url },
  };
}

/** The provider framework's onEvent: registers, updates or removes, and answers the physical id and attributes. */
export async function onEvent(event: CustomResourceEvent, deps: LifecycleDeps): Promise<CustomResourceResult> {
  try {
    const request = readRegistrationProperties(event.ResourceType, event.ResourceProperties);
    const ctx: StepContext = {
      bank: deps.bankFor(request.bank),
      deadline: deps.deadline,
      tokenValue: deps.tokenValue,
      log: deps.log,
      sleep: deps.sleep ?? sleep,
    };
    deps.log.info(`${event.RequestType} ${event.ResourceType}`, {
      logicalResourceId: event.LogicalResourceId,
      physicalResourceId: event.PhysicalResourceId,
      url: request.spec.url,
      account: { cooperativa: request.bank.account.cooperativa, conta: request.bank.account.conta },
    });
    return request.kind === 'payment'
      ? await paymentLifecycle(event, ctx, request.bank, request.spec)
      : await contractLifecycle(event, ctx, request.spec);
  } catch (error) {
    // CloudFormation shows this message as the failure reason: never a secret in it (every value
    // the handler read is registered with `secrets`).
    const message = errorMessage(error);
    const failure = new Error(secrets.redact(message));
    failure.name = error instanceof Error ? error.name : 'Error';
    throw failure;
  }
}
