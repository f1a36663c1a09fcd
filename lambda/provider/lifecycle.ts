/**
 * The custom resource lifecycle (the provider framework's onEvent): Create, Update and Delete of
 * a registration at the provider (this bank's payment callback and boleto webhook contracts),
 * reached through its family's {@link RegistrationKinds}. What is the lifecycle's for every
 * family lives here: the applied record written before the provider is changed, the token pinned
 * once per operation, and failures CloudFormation shows without a secret. A rollback is an Update
 * with the old properties, so it registers the old values again.
 */
import { secrets } from '../shared/redaction';
import { sleep } from '../shared/retry';
import {
  APPLIED_RECORD_PREFIX,
  type AppliedRegistration,
  RegistrationProperty,
  type RegistrationSpec,
} from '../../contracts/registration';
import type { AppliedRegistrations } from '../store/applied-registrations';
import type { TokenVersion } from '../shared/secret-tokens';
import type { Registration, RegistrationKinds, RegistrationSteps } from '../bank/family';
import { errorMessage, type Log } from '../shared/runtime';
import { inSpan } from '../shared/telemetry';

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
  /** The registrations served, bound to the provider's clients (a client per connection). */
  readonly registrations: RegistrationKinds;
  /** The version of a token secret to register (AWSPENDING during a rotation, else AWSCURRENT). */
  readonly token: (secretArn: string) => Promise<TokenVersion>;
  /** Where what each registration applied is recorded (the registration watch compares the bank with it). */
  readonly records: AppliedRegistrations;
  readonly log: Log;
  readonly deadline: number;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** An update's previous URL (ours, so never "another party's"), when its old properties can be read. */
function previousSpecUrl(event: CustomResourceEvent, kinds: RegistrationKinds): string | undefined {
  try {
    return event.OldResourceProperties
      ? kinds.fromProperties(event.ResourceType, event.OldResourceProperties).spec.url
      : undefined;
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
async function record(
  place: RecordPlace,
  subject: string,
  spec: RegistrationSpec,
  token: TokenVersion | undefined,
  physicalResourceId?: string,
): Promise<void> {
  if (!place.name) return;
  const applied: AppliedRegistration = {
    format: 1,
    resourceType: place.event.ResourceType as AppliedRegistration['resourceType'],
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
async function forget(place: RecordPlace, subject: string, ctx: RegistrationSteps): Promise<void> {
  if (!place.name) return;
  let held: AppliedRegistration | undefined;
  try {
    held = await place.records.read(place.name);
  } catch (error) {
    ctx.log.warn('The applied-registration record is not one this library wrote: removed with the registration', {
      record: place.name,
      error: errorMessage(error),
    });
  }
  const ours =
    !held ||
    (held.physicalResourceId ? held.physicalResourceId === place.event.PhysicalResourceId : held.subject === subject);
  if (ours) await place.records.remove(place.name);
  else
    ctx.log.info("The applied-registration record is the replacement's: kept", {
      record: place.name,
      physicalResourceId: place.event.PhysicalResourceId,
    });
}

/** The applied-registration record's name the properties give (none before records existed), checked. */
function appliedRecordOf(event: CustomResourceEvent): string | undefined {
  const name = event.ResourceProperties[RegistrationProperty.APPLIED_RECORD];
  if (name === undefined || name === '') return undefined;
  if (
    typeof name !== 'string' ||
    !name.startsWith(`${APPLIED_RECORD_PREFIX}/`) ||
    !/^[A-Za-z0-9_.\-/]{1,1011}$/.test(name)
  ) {
    throw new Error(
      `The custom resource property ${RegistrationProperty.APPLIED_RECORD} must be an SSM parameter name under ${APPLIED_RECORD_PREFIX}/ (the registration construct sets it; redeploy rather than editing it)`,
    );
  }
  return name;
}

/** The token to register, read once (every call of the operation sends the same value) and checked as a deploy checks it. */
async function pinToken(
  deps: LifecycleDeps,
  steps: RegistrationSteps,
  registration: Registration,
): Promise<{ steps: RegistrationSteps; token?: TokenVersion }> {
  const secretArn = registration.spec.tokenSecretArn;
  if (!secretArn) return { steps };
  const token = await deps.token(secretArn);
  registration.checkToken(token.value, secretArn);
  return { steps: { ...steps, tokenValue: () => Promise.resolve(token.value) }, token };
}

async function lifecycle(
  event: CustomResourceEvent,
  steps: RegistrationSteps,
  deps: LifecycleDeps,
  place: RecordPlace,
  registration: Registration,
): Promise<CustomResourceResult> {
  const { subject, spec } = registration;
  if (event.RequestType === 'Delete') {
    const current = event.PhysicalResourceId!;
    const outcome = await inSpan('remove', {}, () => registration.remove(steps, current));
    if (outcome === undefined) {
      steps.log.warn('Not a registration this handler made: nothing to remove', { physicalResourceId: current });
    } else {
      steps.log.info(outcome, { url: spec.url });
      await forget(place, subject, steps);
    }
    return { PhysicalResourceId: current };
  }
  const pinned = await inSpan('pin token', {}, () => pinToken(deps, steps, registration));
  await inSpan('record', {}, () => record(place, subject, spec, pinned.token, registration.plannedPhysicalId));
  const applied = await inSpan('apply', {}, () =>
    registration.apply(
      pinned.steps,
      event.RequestType === 'Update'
        ? { current: event.PhysicalResourceId, previousUrl: previousSpecUrl(event, deps.registrations) }
        : {},
    ),
  );
  if (applied.physicalResourceId !== registration.plannedPhysicalId) {
    try {
      await record(place, subject, spec, pinned.token, applied.physicalResourceId);
    } catch (error) {
      // The record already says what was applied; only the physical id (used on Delete) is missing.
      steps.log.warn('Could not add the physical id to the applied-registration record', {
        record: place.name,
        error: errorMessage(error),
      });
    }
  }
  return { PhysicalResourceId: applied.physicalResourceId, Data: applied.data };
}

/** The provider framework's onEvent: registers, updates or removes, and answers the physical id and attributes. */
export async function onEvent(event: CustomResourceEvent, deps: LifecycleDeps): Promise<CustomResourceResult> {
  try {
    const registration = deps.registrations.fromProperties(event.ResourceType, event.ResourceProperties);
    const steps: RegistrationSteps = {
      deadline: deps.deadline,
      tokenValue: () => Promise.reject(new Error('The token is read once per operation (pinToken)')),
      log: deps.log,
      sleep: deps.sleep ?? sleep,
    };
    const place: RecordPlace = { records: deps.records, name: appliedRecordOf(event), event };
    deps.log.info(`${event.RequestType} ${event.ResourceType}`, {
      logicalResourceId: event.LogicalResourceId,
      physicalResourceId: event.PhysicalResourceId,
      url: registration.spec.url,
      account: registration.logged,
    });
    // One span per request, a step each under it (no-ops unless an OpenTelemetry SDK is loaded: the stack's provider has no layer).
    return await inSpan(
      `${event.RequestType} ${event.ResourceType}`,
      { 'cloudformation.logical_id': event.LogicalResourceId },
      () => lifecycle(event, steps, deps, place, registration),
    );
  } catch (error) {
    // CloudFormation shows this message as the failure reason: never a secret in it (every value
    // the handler read is registered with `secrets`).
    const message = errorMessage(error);
    const failure = new Error(secrets.redact(message));
    failure.name = error instanceof Error ? error.name : 'Error';
    throw failure;
  }
}
