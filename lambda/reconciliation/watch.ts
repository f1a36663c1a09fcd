/**
 * The registration watch: the bank can deactivate, block or lose a registration without telling
 * anyone, and every notification after that is lost. On each sweep, each registration is read at
 * the bank and compared with what its last deploy applied (the provider's record, never the
 * sweep's own copy of the settings), in both directions: a paused contract held ATIVO is drift as
 * much as an active one held INATIVO. The token is compared with the version the deploy
 * registered, by value in memory only, and that version must still be one the receiver accepts.
 *
 * With `repairRegistrations`, the record is put back through the very steps a deploy uses, but
 * never: with no record (unknown), while the stack is not in a completed state (a deploy or a
 * rollback under way), over another party's URL without the record's `takeOverExisting`, with a
 * token a deploy would refuse, or once contested (it drifted again soon after a repair under the
 * same deploy: another stack or a person changes it back, and a fight every sweep helps nobody).
 */
import {
  type AppliedRegistration, type BoletoContractSpec, type PaymentWebhookSpec, RegistrationResourceType,
} from '../../contracts/registration';
import {
  COMPLETED_STACK_STATUSES, RegistrationDrift, SweepMetric, WatchDefaults, type WatchedRegistration, type WatchFinding, type WatchSettings, WatchState,
} from '../../contracts/reconciliation';
import { tokenMatches } from '../shared/token-check';
import { errorMessage } from '../shared/runtime';
import { describeUrl, sameUrl, type StepContext } from '../bank/registration/steps';
import { contractIdOf, createContract, findContracts } from '../bank/registration/boleto-contract';
import { readPaymentWebhookHeld, registerPaymentWebhook } from '../bank/registration/payment-webhook';
import { checkRegistrableToken } from '../bank/registration/registrable-token';
import type { WatchStateRecord, WatchStates } from '../store/watch-states';

export interface WatchDeps {
  readonly ctx: StepContext;
  readonly settings: WatchSettings;
  /** The record of what a registration's last deploy applied (throws on a record this library did not write). */
  readonly readRecord: (name: string) => Promise<AppliedRegistration | undefined>;
  readonly tokens: {
    /** The value of one version of a token secret; undefined when the version is gone. */
    version(secretArn: string, versionId: string): Promise<string | undefined>;
    /** The values the receiver accepts now (current, and pending during a rotation). */
    accepted(secretArn: string): Promise<string[]>;
  };
  readonly states: WatchStates;
  /** The stack's status (CloudFormation DescribeStacks of its own stack). */
  readonly stackStatus: () => Promise<string>;
  /** Counts a metric; `details` go in its line (not dimensions: one alarm covers every registration). */
  readonly count: (metric: string, details: Record<string, string>) => void;
  readonly now?: () => number;
}

interface Comparison {
  readonly drift: RegistrationDrift[];
  /** What the bank holds, for the log (never a token). */
  readonly held: string;
}

/** The token the deploy registered and whether the receiver still accepts it. */
interface RecordedToken {
  /** Its value (memory only); undefined when the record names none or the version is gone. */
  readonly value?: string;
  readonly stale: boolean;
}

async function recordedToken(deps: WatchDeps, record: AppliedRegistration): Promise<RecordedToken> {
  const arn = record.spec.tokenSecretArn;
  if (!arn || !record.tokenVersionId) return { stale: false };
  const value = await deps.tokens.version(arn, record.tokenVersionId);
  return { value, stale: !value || !tokenMatches(value, await deps.tokens.accepted(arn)) };
}

async function comparePayment(ctx: StepContext, spec: PaymentWebhookSpec, token: RecordedToken): Promise<Comparison> {
  const held = await readPaymentWebhookHeld(ctx);
  const stale = token.stale ? [RegistrationDrift.STALE_TOKEN] : [];
  if (!held.url) return { drift: [RegistrationDrift.MISSING, ...stale], held: 'nothing' };
  if (!sameUrl(held.url, spec.url)) return { drift: [RegistrationDrift.OTHER_URL, ...stale], held: describeUrl(held.url) };
  const tokenDrift = token.value !== undefined && !tokenMatches(held.token ?? undefined, [token.value]) ? [RegistrationDrift.TOKEN] : [];
  return { drift: [...tokenDrift, ...stale], held: describeUrl(held.url) };
}

/** How a status the bank holds differs from the one the deploy applied. */
function statusDrift(held: unknown, applied: string): RegistrationDrift | undefined {
  if (held === applied) return undefined;
  if (held === 'ATIVO') return RegistrationDrift.ACTIVE;
  return held === 'BLOQUEADO' ? RegistrationDrift.BLOCKED : RegistrationDrift.INACTIVE;
}

async function compareContract(ctx: StepContext, spec: BoletoContractSpec, token: RecordedToken): Promise<Comparison> {
  const [held] = await findContracts(ctx, spec);
  const stale = token.stale ? [RegistrationDrift.STALE_TOKEN] : [];
  if (!held) {
    // A contract the deploy paused that the bank no longer holds sends nothing either way.
    const paused = spec.contratoStatus !== 'ATIVO' && spec.urlStatus !== 'ATIVO';
    return { drift: paused ? [] : [RegistrationDrift.MISSING, ...stale], held: 'nothing' };
  }
  const drift: RegistrationDrift[] = [];
  if (!sameUrl(held.url, spec.url)) drift.push(RegistrationDrift.OTHER_URL);
  for (const field of ['contratoStatus', 'urlStatus'] as const) {
    const d = statusDrift(held[field], spec[field]);
    if (d) drift.push(d);
  }
  if (!drift.includes(RegistrationDrift.OTHER_URL) && token.value !== undefined) {
    if (!tokenMatches(typeof held.token === 'string' ? held.token : undefined, [token.value])) drift.push(RegistrationDrift.TOKEN);
  }
  return { drift: [...new Set([...drift, ...stale])], held: `contract ${contractIdOf(held) ?? '(no id)'} at ${describeUrl(held.url)}` };
}

/** Whether a drift now, under `record`, makes the registration contested. */
function isContested(previous: WatchStateRecord | undefined, record: AppliedRegistration, now: number): boolean {
  if (!previous) return false;
  if (previous.contestedUnder === record.requestId) return true;
  return previous.repairedUnder === record.requestId && previous.repairedAt !== undefined && now - previous.repairedAt < WatchDefaults.contestWindowSeconds * 1000;
}

/** Why a drift is not repaired, and the state that leaves; undefined: repair it. Checked in order; the first reason wins. */
function reasonNotToRepair(repair: boolean, record: AppliedRegistration, drift: readonly RegistrationDrift[], token: RecordedToken, contested: boolean): { why: string; state: WatchState } | undefined {
  const drifted = (why: string) => ({ why, state: WatchState.DRIFT });
  if (!repair) return drifted('repairRegistrations is off');
  if (drift.includes(RegistrationDrift.STALE_TOKEN)) {
    return drifted('the token the last deploy registered is no longer one the receiver accepts (the secret changed without a deploy): deploy with a new tokenVersion to register the current one');
  }
  if (drift.includes(RegistrationDrift.OTHER_URL) && !record.spec.takeOverExisting) return drifted('the bank holds another party\'s URL (takeOverExisting is off)');
  if (contested) {
    return {
      why: `contested: it drifted again within ${WatchDefaults.contestWindowSeconds / 3600} hours of a repair (another stack or a person changes it back); repaired again once the bank matches or a deploy applies it anew`,
      state: WatchState.CONTESTED,
    };
  }
  const secretArn = record.spec.tokenSecretArn;
  if (secretArn) {
    if (token.value === undefined) return drifted(`the record names no version of the token secret ${secretArn} to register: deploy a registration change to record one`);
    try {
      checkRegistrableToken(token.value, secretArn);
    } catch (error) {
      return drifted(`a deploy would refuse the token it would register: ${errorMessage(error)}`);
    }
  }
  return undefined;
}

/** What one registration's watch came to: its state and drift, why it was not repaired, and what the state item keeps beside. */
interface Outcome {
  readonly state: WatchState;
  readonly drift: RegistrationDrift[];
  readonly why?: string;
  readonly keep?: Partial<WatchStateRecord>;
}

/** Compares one registration with its record and repairs it when it may. */
async function watchOne(deps: WatchDeps, registration: WatchedRegistration, previous: WatchStateRecord | undefined, stackStatus: () => Promise<string>): Promise<Outcome> {
  const { ctx, settings } = deps;
  const now = deps.now ?? Date.now;
  const { label, appliedRecord } = registration;
  let record: AppliedRegistration | undefined;
  let unreadable: string | undefined;
  try {
    record = await deps.readRecord(appliedRecord);
  } catch (error) {
    unreadable = errorMessage(error);
  }
  if (!record) {
    const why = unreadable ?? 'no deploy has recorded what it applied (a stack upgraded without a registration change): deploy a registration change (such as tokenVersion) to record it';
    deps.count(SweepMetric.REGISTRATIONS_UNKNOWN, { registration: label });
    ctx.log.warn('The registration\'s last deploy is unknown: not compared, never repaired', { registration: label, record: appliedRecord, why });
    return { state: WatchState.UNKNOWN, drift: [], why };
  }
  const token = await recordedToken(deps, record);
  const payment = record.resourceType === RegistrationResourceType.PAYMENT_WEBHOOK;
  const { drift, held } = payment ? await comparePayment(ctx, record.spec as PaymentWebhookSpec, token) : await compareContract(ctx, record.spec as BoletoContractSpec, token);
  // In sync again: a contest is over (the state item keeps none).
  if (!drift.length) return { state: WatchState.IN_SYNC, drift };
  const stack = await stackStatus();
  if (!COMPLETED_STACK_STATUSES.includes(stack)) {
    // A deploy or a rollback is changing it: the next sweep compares again (no drift counted, no alarm).
    ctx.log.info('The bank\'s registration differs while the stack is changing', { registration: label, drift, held, stackStatus: stack });
    return { state: WatchState.DRIFT, drift, why: `the stack is ${stack}: compared again at the next sweep` };
  }
  deps.count(SweepMetric.REGISTRATION_DRIFT, { registration: label, drift: drift.join(',') });
  const contested = settings.repair && isContested(previous, record, now());
  const notRepaired = reasonNotToRepair(settings.repair, record, drift, token, contested);
  ctx.log.warn('The bank\'s registration is not what the last deploy applied', { registration: label, drift, held, appliedAt: record.appliedAt, repair: notRepaired ? `no: ${notRepaired.why}` : 'yes' });
  if (notRepaired?.state === WatchState.CONTESTED) {
    deps.count(SweepMetric.REGISTRATION_CONTESTED, { registration: label, drift: drift.join(',') });
    const since = previous?.contestedUnder === record.requestId ? previous.contestedSince : now();
    return { ...notRepaired, drift, keep: { contestedUnder: record.requestId, contestedSince: since } };
  }
  if (notRepaired) return { ...notRepaired, drift };
  const repairCtx: StepContext = { ...ctx, tokenValue: () => Promise.resolve(token.value!) };
  try {
    if (payment) await registerPaymentWebhook(repairCtx, record.spec as PaymentWebhookSpec);
    else await createContract(repairCtx, record.spec as BoletoContractSpec);
  } catch (error) {
    // The steps leave another party's registration alone and undo what they could not confirm; the drift alarm is already counted.
    const why = `the repair failed: ${errorMessage(error)}`;
    ctx.log.error('Could not put back what the last deploy applied', { registration: label, why });
    return { state: WatchState.DRIFT, drift, why };
  }
  deps.count(SweepMetric.REGISTRATIONS_REPAIRED, { registration: label });
  ctx.log.info('Put back what the last deploy applied at the bank', { registration: label, appliedAt: record.appliedAt });
  return { state: WatchState.REPAIRED, drift, keep: { repairedAt: now(), repairedUnder: record.requestId } };
}

/** Reads every registration of the stack, reports each drift, and repairs what it may; keeps what it saw of each. */
export async function watchRegistrations(deps: WatchDeps): Promise<WatchFinding[]> {
  const now = deps.now ?? Date.now;
  let status: string | undefined;
  const stackStatus = async () => (status ??= await deps.stackStatus());
  const findings: WatchFinding[] = [];
  for (const registration of [...(deps.settings.payment ? [deps.settings.payment] : []), ...deps.settings.contracts]) {
    const previous = await deps.states.read(registration.appliedRecord);
    const { state, drift, why, keep } = await watchOne(deps, registration, previous, stackStatus);
    await deps.states.write(registration.appliedRecord, { state, drift, watchedAt: now(), repairedAt: previous?.repairedAt, repairedUnder: previous?.repairedUnder, ...keep });
    findings.push({ registration: registration.label, state, drift, repaired: state === WatchState.REPAIRED, ...(why ? { notRepaired: why } : {}) });
  }
  return findings;
}
