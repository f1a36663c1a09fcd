/**
 * The contract of the configuration watch (the sweep's): CloudFormation's drift detection over the
 * stack's own security-relevant resources, started from the sweep when none is running and the
 * stack is not changing, read on a later sweep. What no policy stops (the account's root, an
 * administrator, an action a service does not evaluate) is seen; nothing is ever repaired.
 */

/**
 * The resource types whose drift is security-relevant: the rules that deliver verified events and
 * the bus policy that guards them, the queues and their policies, the journal and its policy, the
 * functions, their permissions and roles. Each supports drift detection in CloudFormation's
 * resource type support table (cdk-bank-webhooks/docs/security.md lists them with the source).
 */
export const CONFIGURATION_DRIFT_TYPES: readonly string[] = [
  'AWS::Events::Rule',
  'AWS::Events::EventBus',
  'AWS::Events::EventBusPolicy',
  'AWS::SQS::Queue',
  'AWS::SQS::QueuePolicy',
  'AWS::S3::Bucket',
  'AWS::S3::BucketPolicy',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
  'AWS::IAM::Role',
  'AWS::IAM::Policy',
];

/** The drift statuses that alarm (CloudFormation's `StackResourceDriftStatus`). */
export enum ConfigurationDriftStatus {
  /** The resource differs from the template's properties. */
  MODIFIED = 'MODIFIED',
  /** The resource is gone. */
  DELETED = 'DELETED',
  /** CloudFormation did not check it (a type it cannot, or a read it was refused): nobody sees it. */
  NOT_CHECKED = 'NOT_CHECKED',
}

/** One security-relevant resource that drifted, or was not checked. */
export interface ConfigurationDriftFinding {
  readonly logicalId: string;
  readonly type: string;
  readonly status: ConfigurationDriftStatus;
  /** The properties that differ, by path (`/Targets/0/Input`): never their values, which may be anything someone wrote. */
  readonly properties: readonly string[];
}

/** Where the configuration watch stands after a sweep. */
export enum ConfigurationWatchState {
  /** A detection was started on this sweep; its result is read on a later one. */
  STARTED = 'started',
  /** The detection started earlier is still running. */
  RUNNING = 'running',
  /** A detection's result was read on this sweep (or an earlier one, and none is due yet). */
  READ = 'read',
  /** The stack is changing (or not serving): nothing started, nothing read. */
  WAITING = 'waiting',
}

/** What the configuration watch found, kept with the sweep's result (the next sweep and `status` read it). */
export interface ConfigurationWatchReport {
  readonly state: ConfigurationWatchState;
  /** The detection running or last read (CloudFormation's id: the next sweep asks it for this). */
  readonly detectionId?: string;
  /** When the detection was started (epoch ms). */
  readonly startedAt?: number;
  /** When the result read was detected (epoch ms). */
  readonly checkedAt?: number;
  /** The security-relevant resources that drifted or were not checked, as last read since the stack's last update. */
  readonly findings: readonly ConfigurationDriftFinding[];
  /** Why nothing was started or read, or what CloudFormation said of a failed detection. */
  readonly reason?: string;
  /** The watch itself failed on this sweep (a refused call): it alarms as a drift would, since nothing was seen. */
  readonly failed?: boolean;
}

/** The configuration watch's settings, as the construct writes them in the sweep's. */
export interface ConfigurationWatchSettings {
  /** The stack's id (its ARN). */
  readonly stackId: string;
  /** Minutes between two detections (a detection after the stack's last update is always due). */
  readonly intervalMinutes: number;
}

/** The runbook's anchor in docs/operations.md (the alarm's `Runbook.CONFIGURATION_DRIFT`; `status` names it). */
export const CONFIGURATION_DRIFT_RUNBOOK = 'configurationdriftalarm';

export const ConfigurationWatchDefaults = {
  /** Minutes between two detections. */
  intervalMinutes: 60,
} as const;
