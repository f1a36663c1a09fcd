/**
 * The registration watch: the bank can deactivate, block or lose a registration without telling
 * anyone, and every notification after that is lost. On each sweep, each registration is read at
 * the bank and compared with what the stack deployed (the sweep's settings, known at synth), in
 * both directions: a paused contract held ATIVO is drift as much as an active one held INATIVO.
 * The deploy's record (an SSM parameter) adds only what the deploy learned: the token version it
 * registered (compared by value in memory only, and still one the receiver accepts), its request
 * id and the contact fields; a record that is missing, unreadable or disagrees with the settings
 * is a state of its own with an alarm, and never repaired to.
 *
 * With `repairRegistrations`, what the stack deployed is put back through the very steps a deploy
 * uses, but never: with a record it cannot trust, while the stack is not in a completed status (a
 * change under way, or stuck: drift still alarms then), over another party's URL without the
 * stack's `takeOverExisting`, with any token but a version of the registration's own token secret
 * that the receiver accepts and a deploy would take, or once contested (it drifted again soon
 * after a repair under the same deploy: another stack or a person changes it back).
 */
import { APPLIED_RECORD_PREFIX, type AppliedRegistration, type RegistrationSpec } from '../../contracts/registration';
import { normalizePixKey } from '../../contracts/pix';
import { RecurringWebhookKind } from '../../contracts/pix-recurring';
import {
  type PixKeysWatched,
  RegistrationDrift,
  StackWatchMode,
  stackWatchMode,
  SweepMetric,
  WatchDefaults,
  type WatchedRegistration,
  type WatchFinding,
  type WatchSettings,
  WatchState,
} from '../../contracts/reconciliation';
import { tokenMatches } from '../shared/token-check';
import { errorMessage } from '../shared/runtime';
import type { Registration, RegistrationKinds, RegistrationSteps } from '../bank/family';
import type { WatchStateRecord, WatchStates } from '../store/watch-states';
import { recordDisagreement, repairSpec } from './deployed';

export interface WatchDeps {
  readonly steps: RegistrationSteps;
  /** The registrations the stack deployed, bound to the watch's connection. */
  readonly registrations: RegistrationKinds;
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
  /** The stack's output `key` (the same DescribeStacks): where the Pix keys the stack deployed are. */
  readonly stackOutput?: (key: string) => Promise<string | undefined>;
  /** Counts a metric; `details` go in its line (not dimensions: one alarm covers every registration). */
  readonly count: (metric: string, details: Record<string, string>) => void;
  readonly now?: () => number;
}

/** The token the bank should hold, and the one a repair may register. */
interface TokenExpectation {
  /** Values the bank may hold without drift (memory only): the version the deploy registered, or without a trusted record every value the receiver accepts. Empty: not compared. */
  readonly accepted: readonly string[];
  /** The value a repair registers: the recorded version of the registration's own token secret (a trusted record only). */
  readonly register?: string;
  /** The recorded version is no longer one the receiver accepts. */
  readonly stale: boolean;
}

/**
 * What the bank's token is compared with. The secret is always the one the stack deployed; a
 * trusted record only names which of its versions was registered, so the watch can never
 * register another secret's value (a record naming the bank credentials is not trusted).
 */
async function tokenExpectation(
  deps: WatchDeps,
  secretArn: string | undefined,
  record: AppliedRegistration | undefined,
): Promise<TokenExpectation> {
  if (!secretArn) return { accepted: [], stale: false };
  if (!record) return { accepted: await deps.tokens.accepted(secretArn), stale: false };
  if (!record.tokenVersionId) return { accepted: [], stale: false };
  const value = await deps.tokens.version(secretArn, record.tokenVersionId);
  const stale = !value || !tokenMatches(value, await deps.tokens.accepted(secretArn));
  return { accepted: value ? [value] : [], ...(value ? { register: value } : {}), stale };
}

/** Whether a drift now, under `record`, makes the registration contested. */
function isContested(previous: WatchStateRecord | undefined, record: AppliedRegistration, now: number): boolean {
  if (!previous) return false;
  if (previous.contestedUnder === record.requestId) return true;
  return (
    previous.repairedUnder === record.requestId &&
    previous.repairedAt !== undefined &&
    now - previous.repairedAt < WatchDefaults.contestWindowSeconds * 1000
  );
}

/** Why a drift is not repaired, and the state that leaves; undefined: repair it. Checked in order; the first reason wins. */
function reasonNotToRepair(
  repair: boolean,
  registration: Registration,
  drift: readonly RegistrationDrift[],
  token: TokenExpectation,
  contested: boolean,
): { why: string; state: WatchState } | undefined {
  const drifted = (why: string) => ({ why, state: WatchState.DRIFT });
  if (!repair) return drifted('repairRegistrations is off');
  if (drift.includes(RegistrationDrift.STALE_TOKEN)) {
    return drifted(
      'the token the last deploy registered is no longer one the receiver accepts (the secret changed without a deploy): deploy with a new tokenVersion to register the current one',
    );
  }
  const { spec } = registration;
  if (drift.includes(RegistrationDrift.OTHER_URL) && !spec.takeOverExisting)
    return drifted("the bank holds another party's URL (takeOverExisting is off)");
  if (contested) {
    return {
      why: `contested: it drifted again within ${WatchDefaults.contestWindowSeconds / 3600} hours of a repair (another stack or a person changes it back); repaired again once the bank matches or a deploy applies it anew`,
      state: WatchState.CONTESTED,
    };
  }
  const secretArn = spec.tokenSecretArn;
  if (secretArn) {
    if (token.register === undefined)
      return drifted(
        `the record names no version of the token secret ${secretArn} to register: deploy a registration change to record one`,
      );
    try {
      registration.checkToken(token.register, secretArn);
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

/** The deploy's record when it can be trusted, or the state that leaves and why (missing, unreadable, or not what the stack deployed). */
type RecordTrust =
  | { readonly record: AppliedRegistration }
  | { readonly record?: undefined; readonly state: WatchState; readonly why: string };

async function trustedRecord(deps: WatchDeps, registration: WatchedRegistration): Promise<RecordTrust> {
  let record: AppliedRegistration | undefined;
  try {
    record = await deps.readRecord(registration.appliedRecord);
  } catch (error) {
    return { state: WatchState.UNKNOWN, why: errorMessage(error) };
  }
  if (!record) {
    return {
      state: WatchState.UNKNOWN,
      why: 'no deploy record (deleted, or a stack upgraded without a registration change): deploy a registration change (such as tokenVersion) to record one',
    };
  }
  const disagreement = recordDisagreement(record, registration, deps.settings.stackId);
  if (disagreement.length) {
    return {
      state: WatchState.RECORD_MISMATCH,
      why: `the deploy record ${registration.appliedRecord} is not what the stack deployed (${disagreement.join('; ')}): someone wrote it; deploy a registration change to record it again`,
    };
  }
  return { record };
}

/** Compares one registration with what the stack deployed and repairs it when it may. */
async function watchOne(
  deps: WatchDeps,
  registration: WatchedRegistration,
  previous: WatchStateRecord | undefined,
  stackStatus: () => Promise<string>,
): Promise<Outcome> {
  const { steps, settings } = deps;
  const now = deps.now ?? Date.now;
  const label = registration.label;
  const trust = await trustedRecord(deps, registration);
  const spec: RegistrationSpec = repairSpec(registration, trust.record);
  const bound = deps.registrations.fromDeployed(spec);
  const token = await tokenExpectation(deps, spec.tokenSecretArn, trust.record);
  const { drift, held } = await bound.compare(steps, token);
  // In sync again with a record it trusts: a contest is over (the state item keeps none).
  if (!drift.length && trust.record) return { state: WatchState.IN_SYNC, drift };
  const status = await stackStatus();
  const stack = stackWatchMode(status);
  const counted = stack.mode === StackWatchMode.COMPLETED || stack.mode === StackWatchMode.STUCK;
  if (counted && drift.length)
    deps.count(SweepMetric.REGISTRATION_DRIFT, { registration: label, drift: drift.join(',') });
  if (!trust.record) {
    if (counted) {
      if (trust.state === WatchState.UNKNOWN) deps.count(SweepMetric.REGISTRATIONS_UNKNOWN, { registration: label });
      deps.count(SweepMetric.REGISTRATION_RECORD_UNTRUSTED, { registration: label, state: trust.state });
    }
    steps.log.warn(
      "The registration's deploy record cannot be trusted: compared with what the stack deployed, never repaired",
      {
        registration: label,
        record: registration.appliedRecord,
        why: trust.why,
        drift,
        held,
        stackStatus: status,
        counted,
      },
    );
    return { state: trust.state, drift, why: trust.why };
  }
  const { record } = trust;
  if (!counted) {
    // A deploy, a rollback or a delete is changing it (or the stack never served): the next sweep compares again.
    steps.log.info("The bank's registration differs while the stack is not deployed", {
      registration: label,
      drift,
      held,
      stackStatus: status,
      why: stack.why,
    });
    return { state: WatchState.DRIFT, drift, why: `the stack is ${status}: compared again at the next sweep` };
  }
  if (stack.mode === StackWatchMode.STUCK) {
    const why = `the stack is ${status} (${stack.why}): repaired once it is in a completed status`;
    steps.log.warn("The bank's registration is not what the stack deployed, and the stack is stuck", {
      registration: label,
      drift,
      held,
      stackStatus: status,
    });
    return { state: WatchState.DRIFT, drift, why };
  }
  const contested = settings.repair && isContested(previous, record, now());
  const notRepaired = reasonNotToRepair(settings.repair, bound, drift, token, contested);
  steps.log.warn("The bank's registration is not what the stack deployed", {
    registration: label,
    drift,
    held,
    appliedAt: record.appliedAt,
    repair: notRepaired ? `no: ${notRepaired.why}` : 'yes',
  });
  if (notRepaired?.state === WatchState.CONTESTED) {
    deps.count(SweepMetric.REGISTRATION_CONTESTED, { registration: label, drift: drift.join(',') });
    const since = previous?.contestedUnder === record.requestId ? previous.contestedSince : now();
    return { ...notRepaired, drift, keep: { contestedUnder: record.requestId, contestedSince: since } };
  }
  if (notRepaired) return { ...notRepaired, drift };
  try {
    await bound.repair({ ...steps, tokenValue: () => Promise.resolve(token.register!) });
  } catch (error) {
    // The steps leave another party's registration alone and undo what they could not confirm; the drift alarm is already counted.
    const why = `the repair failed: ${errorMessage(error)}`;
    steps.log.error('Could not put back what the stack deployed', { registration: label, why });
    return { state: WatchState.DRIFT, drift, why };
  }
  deps.count(SweepMetric.REGISTRATIONS_REPAIRED, { registration: label });
  steps.log.info('Put back what the stack deployed at the bank', { registration: label, appliedAt: record.appliedAt });
  return { state: WatchState.REPAIRED, drift, keep: { repairedAt: now(), repairedUnder: record.requestId } };
}

/**
 * The Pix webhooks the stack deployed, from its own output (the settings name it): each key in its
 * normal form, and each of the account's (`rec`, `cobr`), with its record under the applied prefix. An output that cannot be read is
 * an error, never an empty list (the keys would silently go unwatched).
 */
async function deployedPixKeys(deps: WatchDeps): Promise<WatchedRegistration[]> {
  const key = deps.settings.pixKeysOutput;
  if (!key) return [];
  const raw = await deps.stackOutput?.(key);
  let watched: PixKeysWatched;
  try {
    watched = JSON.parse(raw ?? '') as PixKeysWatched;
  } catch {
    throw new Error(`The stack's output ${key} (the Pix keys it deployed) is missing or not JSON: redeploy the stack`);
  }
  const accounts: ReadonlyArray<readonly [string, string]> = watched?.accounts ?? [];
  const valid =
    typeof watched?.url === 'string' &&
    isRecordList(watched.keys, (chave) => typeof chave === 'string' && normalizePixKey(chave)?.key === chave) &&
    isRecordList(accounts, (kind) => ACCOUNT_WEBHOOKS.includes(kind));
  if (!valid)
    throw new Error(`The stack's output ${key} is not a list of Pix webhooks with their records: redeploy the stack`);
  const takeOver = watched.takeOverExisting ? { takeOverExisting: true } : {};
  return [
    ...watched.keys.map(([chave, appliedRecord]) => ({
      label: `pix ${chave}`,
      appliedRecord,
      deployed: { chave, url: watched.url, ...takeOver },
    })),
    ...accounts.map(([accountWebhook, appliedRecord]) => ({
      label: `pix webhook${accountWebhook}`,
      appliedRecord,
      deployed: { accountWebhook, url: watched.url, ...takeOver },
    })),
  ];
}

/** The account's Pix Automático webhooks an output may name. */
const ACCOUNT_WEBHOOKS: readonly unknown[] = Object.values(RecurringWebhookKind);

/** Whether an output's list is of `[name, applied record]`: each name as `named` accepts it, each record under the applied prefix. */
function isRecordList(value: unknown, named: (name: unknown) => boolean): boolean {
  return (
    Array.isArray(value) &&
    value.every(
      (entry: unknown) =>
        Array.isArray(entry) &&
        named(entry[0]) &&
        typeof entry[1] === 'string' &&
        entry[1].startsWith(`${APPLIED_RECORD_PREFIX}/`),
    )
  );
}

/** Reads every registration of the stack, reports each drift, and repairs what it may; keeps what it saw of each. */
export async function watchRegistrations(deps: WatchDeps): Promise<WatchFinding[]> {
  const now = deps.now ?? Date.now;
  let status: string | undefined;
  const stackStatus = async () => (status ??= await deps.stackStatus());
  const findings: WatchFinding[] = [];
  for (const registration of [
    ...(deps.settings.payment ? [deps.settings.payment] : []),
    ...deps.settings.contracts,
    ...(await deployedPixKeys(deps)),
  ]) {
    const previous = await deps.states.read(registration.appliedRecord);
    const { state, drift, why, keep } = await watchOne(deps, registration, previous, stackStatus);
    await deps.states.write(registration.appliedRecord, {
      state,
      drift,
      watchedAt: now(),
      repairedAt: previous?.repairedAt,
      repairedUnder: previous?.repairedUnder,
      ...keep,
    });
    findings.push({
      registration: registration.label,
      state,
      drift,
      repaired: state === WatchState.REPAIRED,
      ...(why ? { notRepaired: why } : {}),
    });
  }
  return findings;
}
