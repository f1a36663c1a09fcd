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
import {
  APPLIED_RECORD_PREFIX, type AppliedRegistration, type BoletoContractSpec, type PaymentWebhookSpec, RegistrationAttribute, RegistrationProperty, RegistrationResourceType,
} from '../../contracts/registration';
import type { AppliedRegistrations } from '../store/applied-registrations';
import type { TokenVersion } from '../shared/secret-tokens';
import { type BankCaller, checkRegistrableToken, type ContractIdentity, createContract, deactivateContract, registerPaymentWebhook, type StepContext, unregisterPaymentWebhook, updateContract } from '../bank/cooperative';
import { readRegistrationProperties } from './settings';
import { errorMessage, type Log } from '../shared/runtime';

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
  /** The version of a token secret to register (AWSPENDING during a rotation, else AWSCURRENT). */
  readonly token: (secretArn: string) => Promise<TokenVersion>;
  /** Where what each registration applied is recorded (the registration watch compares the bank with it). */
  readonly records: AppliedRegistrations;
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
  return `${contractSubject(identity)}/${encodeURIComponent(contractId)}`;
}

/** What the bank keys a contract by: its physical id without the contract's id. */
function contractSubject(identity: ContractIdentity): string {
  return [CONTRACT_PREFIX, identity.cooperativa, identity.posto, identity.codBeneficiario].map(encodeURIComponent).join('/');
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

/** Where a registration's applied record goes, and what it holds but for the spec and token. */
interface RecordPlace {
  readonly records: AppliedRegistrations;
  /** The SSM parameter (absent in properties written before records existed: nothing is recorded). */
  readonly name?: string;
  readonly event: CustomResourceEvent;
}

/**
 * Records what is about to be applied, before the bank is changed: a deploy that cannot record
 * changes nothing at the bank, and one whose change then fails is rolled back with an Update that
 * records the old values again. The token's version pins the value registered.
 */
async function record(place: RecordPlace, subject: string, spec: PaymentWebhookSpec | BoletoContractSpec, token: TokenVersion | undefined, physicalResourceId?: string): Promise<void> {
  if (!place.name) return;
  const applied: AppliedRegistration = {
    format: 1,
    resourceType: place.event.ResourceType as RegistrationResourceType,
    appliedAt: new Date().toISOString(),
    requestId: place.event.RequestId,
    subject,
    ...(physicalResourceId ? { physicalResourceId } : {}),
    spec,
    ...(token ? { tokenVersionId: token.versionId } : {}),
    stackId: place.event.StackId,
  };
  await place.records.write(place.name, applied);
}

/**
 * On Delete, removes the record when it is this resource's: after a replacement (another account
 * or contract) CloudFormation deletes the old resource once the new one has recorded itself there.
 */
async function forget(place: RecordPlace, subject: string, ctx: StepContext): Promise<void> {
  if (!place.name) return;
  let held: AppliedRegistration | undefined;
  try {
    held = await place.records.read(place.name);
  } catch (error) {
    ctx.log.warn('The applied-registration record is not one this library wrote: removed with the registration', { record: place.name, error: errorMessage(error) });
  }
  const ours = !held || (held.physicalResourceId ? held.physicalResourceId === place.event.PhysicalResourceId : held.subject === subject);
  if (ours) await place.records.remove(place.name);
  else ctx.log.info('The applied-registration record is the replacement\'s: kept', { record: place.name, physicalResourceId: place.event.PhysicalResourceId });
}

/** The applied-registration record's name the properties give (none before records existed), checked. */
function appliedRecordOf(event: CustomResourceEvent): string | undefined {
  const name = event.ResourceProperties[RegistrationProperty.APPLIED_RECORD];
  if (name === undefined || name === '') return undefined;
  if (typeof name !== 'string' || !name.startsWith(`${APPLIED_RECORD_PREFIX}/`) || !/^[A-Za-z0-9_.\-/]{1,1011}$/.test(name)) {
    throw new Error(`The custom resource property ${RegistrationProperty.APPLIED_RECORD} must be an SSM parameter name under ${APPLIED_RECORD_PREFIX}/ (the registration construct sets it; redeploy rather than editing it)`);
  }
  return name;
}

/** The token to register, read once (every call of the operation sends the same value) and checked as a deploy checks it. */
async function pinToken(deps: LifecycleDeps, ctx: StepContext, secretArn: string | undefined): Promise<{ ctx: StepContext; token?: TokenVersion }> {
  if (!secretArn) return { ctx };
  const token = await deps.token(secretArn);
  checkRegistrableToken(token.value, secretArn);
  return { ctx: { ...ctx, tokenValue: () => Promise.resolve(token.value) }, token };
}

async function paymentLifecycle(event: CustomResourceEvent, ctx: StepContext, deps: LifecycleDeps, place: RecordPlace, bank: BankConnectionSettings, spec: PaymentWebhookSpec): Promise<CustomResourceResult> {
  const physicalId = paymentWebhookPhysicalId(bank);
  if (event.RequestType === 'Delete') {
    const current = event.PhysicalResourceId!;
    if (current !== physicalId) {
      ctx.log.warn('Not a registration this handler made: nothing to remove', { physicalResourceId: current });
    } else {
      const outcome = await unregisterPaymentWebhook(ctx, spec);
      ctx.log.info(`Payment callback: ${outcome}`, { url: spec.url });
      await forget(place, physicalId, ctx);
    }
    return { PhysicalResourceId: current };
  }
  if (event.RequestType === 'Update' && event.PhysicalResourceId !== physicalId) {
    ctx.log.info('The account changed: registering for the new one; CloudFormation then removes the old registration', { from: event.PhysicalResourceId, to: physicalId });
  }
  const pinned = await pinToken(deps, ctx, spec.tokenSecretArn);
  await record(place, physicalId, spec, pinned.token, physicalId);
  await registerPaymentWebhook(pinned.ctx, spec, event.RequestType === 'Update' ? previousSpecUrl(event) : undefined);
  return { PhysicalResourceId: physicalId, Data: { [RegistrationAttribute.URL]: spec.url } };
}

async function contractLifecycle(event: CustomResourceEvent, ctx: StepContext, deps: LifecycleDeps, place: RecordPlace, spec: BoletoContractSpec): Promise<CustomResourceResult> {
  const current = parseContractPhysicalId(event.PhysicalResourceId);
  const subject = contractSubject(spec);
  if (event.RequestType === 'Delete') {
    if (!current) {
      ctx.log.warn('Not a contract this handler made: nothing to deactivate', { physicalResourceId: event.PhysicalResourceId });
    } else {
      const outcome = await deactivateContract(ctx, current.id, { ...spec, ...current });
      ctx.log.info(`Boleto webhook contract: ${outcome}`, { contractId: current.id, url: spec.url });
      await forget(place, subject, ctx);
    }
    return { PhysicalResourceId: event.PhysicalResourceId! };
  }
  const pinned = await pinToken(deps, ctx, spec.tokenSecretArn);
  await record(place, subject, spec, pinned.token);
  const result = event.RequestType === 'Update' && current && sameIdentity(current, spec)
    ? await updateContract(pinned.ctx, current.id, spec)
    : await createContract(pinned.ctx, spec);
  const physicalId = contractPhysicalId(spec, result.id);
  try {
    await record(place, subject, spec, pinned.token, physicalId);
  } catch (error) {
    // The record already says what was applied; only the contract's id (used on Delete) is missing.
    ctx.log.warn('Could not add the contract\'s id to the applied-registration record', { record: place.name, error: errorMessage(error) });
  }
  return {
    PhysicalResourceId: physicalId,
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
      tokenValue: () => Promise.reject(new Error('The token is read once per operation (pinToken)')),
      log: deps.log,
      sleep: deps.sleep ?? sleep,
    };
    const place: RecordPlace = { records: deps.records, name: appliedRecordOf(event), event };
    deps.log.info(`${event.RequestType} ${event.ResourceType}`, {
      logicalResourceId: event.LogicalResourceId,
      physicalResourceId: event.PhysicalResourceId,
      url: request.spec.url,
      account: { cooperativa: request.bank.account.cooperativa, conta: request.bank.account.conta },
    });
    return request.kind === 'payment'
      ? await paymentLifecycle(event, ctx, deps, place, request.bank, request.spec)
      : await contractLifecycle(event, ctx, deps, place, request.spec);
  } catch (error) {
    // CloudFormation shows this message as the failure reason: never a secret in it (every value
    // the handler read is registered with `secrets`).
    const message = errorMessage(error);
    const failure = new Error(secrets.redact(message));
    failure.name = error instanceof Error ? error.name : 'Error';
    throw failure;
  }
}
