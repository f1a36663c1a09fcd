/**
 * What the registration watch holds a registration to: what the stack deployed (the sweep's
 * settings, known at synth), never a record someone else can write. The deploy's record (an SSM
 * parameter anyone with `ssm:PutParameter` on it can rewrite) adds only what the deploy learned
 * (the token version registered, the deploy's request id) and the contact fields, and only while
 * it agrees with what the stack deployed.
 */
import {
  type AppliedRegistration,
  type BoletoContractSpec,
  compactDeployed,
  CONTACT_FIELDS,
  contactDigest,
  expandDeployed,
  isContract,
  isPixAccountWebhook,
  isPixKeyWebhook,
  RegistrationResourceType,
  type RegistrationSpec,
} from '../../contracts/registration';
import type { WatchedRegistration } from '../../contracts/reconciliation';

/** The resource type a watched registration's record must carry. */
export function resourceTypeOf(watched: WatchedRegistration): RegistrationResourceType {
  if (isPixKeyWebhook(watched.deployed)) return RegistrationResourceType.PIX_KEY_WEBHOOK;
  if (isPixAccountWebhook(watched.deployed)) return RegistrationResourceType.PIX_ACCOUNT_WEBHOOK;
  return isContract(watched.deployed)
    ? RegistrationResourceType.BOLETO_CONTRACT
    : RegistrationResourceType.PAYMENT_WEBHOOK;
}

/** The fields whose values may be shown in a finding (URLs, statuses, secret ARNs: none secret). */
const shown = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

/**
 * Where a record disagrees with what the stack deployed, in words (empty: it agrees). Fields a
 * record of an earlier release left out are read with the defaults the construct fills, so an
 * upgrade finds no disagreement.
 */
export function recordDisagreement(
  record: AppliedRegistration,
  watched: WatchedRegistration,
  stackId: string,
): string[] {
  const problems: string[] = [];
  const type = resourceTypeOf(watched);
  if (record.resourceType !== type) problems.push(`it is a record of a ${record.resourceType}, not a ${type}`);
  if (record.stackId !== undefined && record.stackId !== stackId)
    problems.push(`it was written by another stack (${record.stackId})`);
  if (problems.length) return problems;
  const ours = expandDeployed(watched.deployed) as Partial<BoletoContractSpec>;
  // Of the watched type (checked above): a record of another shape still disagrees field by field.
  const theirs = expandDeployed(compactDeployed(record.spec)) as Partial<BoletoContractSpec>;
  const fields = new Set([...Object.keys(ours), ...Object.keys(theirs)] as (keyof BoletoContractSpec)[]);
  for (const field of fields) {
    if (JSON.stringify(ours[field]) !== JSON.stringify(theirs[field]))
      problems.push(`${field} is ${shown(theirs[field])}, the stack deployed ${shown(ours[field])}`);
  }
  // The contact fields a repair would send: the ones the stack deployed (their digest), unless only known at deploy time.
  const deployedContact = 'contact' in watched.deployed ? watched.deployed.contact : undefined;
  const recordContact = contactDigest(record.spec);
  if (deployedContact !== '*' && deployedContact !== recordContact)
    problems.push(`its contact fields (${CONTACT_FIELDS.join(', ')}) are not the ones the stack deployed`);
  return problems;
}

/** What a repair registers: what the stack deployed, with the contact fields of a record that agrees with it. */
export function repairSpec(watched: WatchedRegistration, record: AppliedRegistration | undefined): RegistrationSpec {
  return expandDeployed(watched.deployed, record && isContract(record.spec) ? record.spec : {});
}
