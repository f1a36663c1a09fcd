/**
 * The configuration watch: CloudFormation's drift detection over the stack's own security-relevant
 * resources, from the sweep. A detection is started when none is running, the stack is not
 * changing and one is due (none since the stack's last update, or the interval passed); its result
 * is read on a later sweep. Only results newer than the stack's last update count (a redeploy puts
 * the template back). Nothing is repaired: the runbook says how to redeploy.
 *
 * The previous sweep's report (a table item others may write) only names a detection to ask
 * CloudFormation about: one that is not this stack's, or unknown, is ignored and a new one started.
 */
import {
  CONFIGURATION_DRIFT_TYPES,
  type ConfigurationDriftFinding,
  ConfigurationDriftStatus,
  ConfigurationWatchState,
  type ConfigurationWatchReport,
  type ConfigurationWatchSettings,
} from '../../contracts/configuration-drift';
import { StackWatchMode, stackWatchMode } from '../../contracts/watch';

/** The stack as DescribeStacks answers it. */
export interface WatchedStack {
  readonly status: string;
  /** When the stack was last updated, or created (epoch ms). */
  readonly updatedAt: number;
}

/** A detection as DescribeStackDriftDetectionStatus answers it. */
export interface DriftDetection {
  readonly stackId: string;
  /** DETECTION_IN_PROGRESS, DETECTION_COMPLETE or DETECTION_FAILED. */
  readonly status: string;
  readonly reason?: string;
  /** When it ran (epoch ms). */
  readonly at: number;
}

/** A resource's drift as DescribeStackResourceDrifts answers it. */
export interface ResourceDrift {
  readonly logicalId: string;
  readonly type: string;
  readonly status: string;
  /** The differing properties' paths. */
  readonly properties: readonly string[];
  /** When it was checked (epoch ms). */
  readonly at: number;
}

/** The CloudFormation calls the watch makes. */
export interface ConfigurationWatchCalls {
  stack(): Promise<WatchedStack>;
  /** DetectStackDrift: the new detection's id. */
  detect(): Promise<string>;
  /** DescribeStackDriftDetectionStatus; undefined when CloudFormation knows no such detection. */
  detection(id: string): Promise<DriftDetection | undefined>;
  /** DescribeStackResourceDrifts of the statuses that alarm (every page). */
  drifts(): Promise<ResourceDrift[]>;
}

const ALARMING = new Set<string>(Object.values(ConfigurationDriftStatus));
const TYPES = new Set(CONFIGURATION_DRIFT_TYPES);

/** The security-relevant drifts checked since `since`, by logical id. */
function findingsOf(drifts: readonly ResourceDrift[], since: number): ConfigurationDriftFinding[] {
  return drifts
    .filter((d) => TYPES.has(d.type) && ALARMING.has(d.status) && d.at >= since)
    .map((d) => ({
      logicalId: d.logicalId,
      type: d.type,
      status: d.status as ConfigurationDriftStatus,
      properties: [...d.properties].sort(),
    }))
    .sort((a, b) => a.logicalId.localeCompare(b.logicalId));
}

/** One sweep's configuration watch, given what the previous sweep kept. */
export async function watchConfiguration(
  settings: ConfigurationWatchSettings,
  calls: ConfigurationWatchCalls,
  previous: ConfigurationWatchReport | undefined,
  now: number,
): Promise<ConfigurationWatchReport> {
  const stack = await calls.stack();
  // A check time to come (a report someone wrote) counts as never: it would put every detection off.
  const checked = previous?.checkedAt ?? 0;
  const last = checked > now ? 0 : checked;
  // What was read before the stack's last update no longer says anything (the deploy put the template back).
  const kept = last >= stack.updatedAt ? (previous?.findings ?? []) : [];
  const { mode, why } = stackWatchMode(stack.status);
  if (mode !== StackWatchMode.COMPLETED && mode !== StackWatchMode.STUCK)
    return {
      state: ConfigurationWatchState.WAITING,
      findings: kept,
      reason: why,
      ...(last ? { checkedAt: last } : {}),
    };
  const running =
    previous?.detectionId &&
    (previous.state === ConfigurationWatchState.STARTED || previous.state === ConfigurationWatchState.RUNNING)
      ? await calls.detection(previous.detectionId)
      : undefined;
  if (running && running.stackId === settings.stackId) {
    if (running.status === 'DETECTION_IN_PROGRESS')
      return { ...previous!, state: ConfigurationWatchState.RUNNING, findings: kept };
    const findings = findingsOf(await calls.drifts(), stack.updatedAt);
    return {
      state: ConfigurationWatchState.READ,
      detectionId: previous!.detectionId,
      startedAt: previous!.startedAt,
      checkedAt: running.at,
      findings,
      ...(running.status === 'DETECTION_FAILED'
        ? { reason: `CloudFormation could not check every resource: ${running.reason ?? 'no reason given'}` }
        : {}),
    };
  }
  const due = last < stack.updatedAt || now - last >= settings.intervalMinutes * 60_000;
  if (!due) return { state: ConfigurationWatchState.READ, checkedAt: last, findings: kept };
  const detectionId = await calls.detect();
  return {
    state: ConfigurationWatchState.STARTED,
    detectionId,
    startedAt: now,
    ...(last ? { checkedAt: last } : {}),
    findings: kept,
  };
}
