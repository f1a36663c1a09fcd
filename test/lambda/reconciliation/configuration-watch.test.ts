/**
 * The configuration watch over a stubbed CloudFormation: a detection is started when none runs,
 * the stack is not changing and one is due; its result is read on a later sweep; only
 * security-relevant drift since the stack's last update counts; a report someone else wrote can
 * neither hide a drift for long nor point the watch at another stack.
 */
import {
  ConfigurationDriftStatus,
  ConfigurationWatchState,
  type ConfigurationWatchReport,
} from '../../../contracts/configuration-drift';
import {
  type ConfigurationWatchCalls,
  type DriftDetection,
  type ResourceDrift,
  watchConfiguration,
} from '../../../lambda/reconciliation/configuration-watch';

const STACK = 'arn:aws:cloudformation:sa-east-1:111111111111:stack/Bank/1';
const SETTINGS = { stackId: STACK, intervalMinutes: 60 };
const T0 = Date.parse('2026-11-29T12:00:00Z');
const MIN = 60_000;

function cloudFormation(options: {
  status?: string;
  updatedAt?: number;
  detections?: Record<string, DriftDetection>;
  drifts?: ResourceDrift[];
}) {
  const started: number[] = [];
  const calls: ConfigurationWatchCalls = {
    stack: () =>
      Promise.resolve({ status: options.status ?? 'UPDATE_COMPLETE', updatedAt: options.updatedAt ?? T0 - 600 * MIN }),
    detect: () => {
      started.push(started.length);
      return Promise.resolve(`detection-${started.length}`);
    },
    detection: (id) => Promise.resolve(options.detections?.[id]),
    drifts: () => Promise.resolve(options.drifts ?? []),
  };
  return { calls, started };
}

const ruleTarget: ResourceDrift = {
  logicalId: 'SettledRule',
  type: 'AWS::Events::Rule',
  status: 'MODIFIED',
  properties: ['/Targets/0/Input'],
  at: T0 - MIN,
};

describe('the configuration watch', () => {
  it('starts a detection on its first sweep, and reads its result on the next', async () => {
    const first = cloudFormation({});
    const started = await watchConfiguration(SETTINGS, first.calls, undefined, T0);
    expect(started).toEqual({
      state: ConfigurationWatchState.STARTED,
      detectionId: 'detection-1',
      startedAt: T0,
      findings: [],
    });
    const second = cloudFormation({
      detections: { 'detection-1': { stackId: STACK, status: 'DETECTION_COMPLETE', at: T0 - MIN } },
      drifts: [ruleTarget],
    });
    const read = await watchConfiguration(SETTINGS, second.calls, started, T0 + 15 * MIN);
    expect(read).toMatchObject({
      state: ConfigurationWatchState.READ,
      checkedAt: T0 - MIN,
      findings: [
        {
          logicalId: 'SettledRule',
          type: 'AWS::Events::Rule',
          status: ConfigurationDriftStatus.MODIFIED,
          properties: ['/Targets/0/Input'],
        },
      ],
    });
    expect(second.started).toEqual([]);
  });

  it('waits while a detection runs, and starts none beside it', async () => {
    const { calls, started } = cloudFormation({
      detections: { 'detection-1': { stackId: STACK, status: 'DETECTION_IN_PROGRESS', at: T0 } },
    });
    const previous: ConfigurationWatchReport = {
      state: ConfigurationWatchState.STARTED,
      detectionId: 'detection-1',
      startedAt: T0,
      findings: [],
    };
    expect(await watchConfiguration(SETTINGS, calls, previous, T0 + MIN)).toMatchObject({
      state: ConfigurationWatchState.RUNNING,
      detectionId: 'detection-1',
    });
    expect(started).toEqual([]);
  });

  it('counts only security-relevant types drifted, deleted or not checked, and only since the last update', async () => {
    const { calls } = cloudFormation({
      updatedAt: T0 - 10 * MIN,
      detections: {
        d: { stackId: STACK, status: 'DETECTION_FAILED', reason: 'Access denied for iam:GetRole', at: T0 - MIN },
      },
      drifts: [
        ruleTarget,
        { logicalId: 'Queue', type: 'AWS::SQS::QueuePolicy', status: 'DELETED', properties: [], at: T0 - MIN },
        { logicalId: 'Role', type: 'AWS::IAM::Role', status: 'NOT_CHECKED', properties: [], at: T0 - MIN },
        {
          logicalId: 'Alarm',
          type: 'AWS::CloudWatch::Alarm',
          status: 'MODIFIED',
          properties: ['/Threshold'],
          at: T0 - MIN,
        },
        { logicalId: 'Synced', type: 'AWS::S3::Bucket', status: 'IN_SYNC', properties: [], at: T0 - MIN },
        {
          logicalId: 'Stale',
          type: 'AWS::S3::BucketPolicy',
          status: 'MODIFIED',
          properties: ['/PolicyDocument'],
          at: T0 - 20 * MIN,
        },
      ],
    });
    const previous = { state: ConfigurationWatchState.STARTED, detectionId: 'd', findings: [] };
    const read = await watchConfiguration(SETTINGS, calls, previous, T0);
    expect(read.findings.map((f) => `${f.logicalId} ${f.status}`)).toEqual([
      'Queue DELETED',
      'Role NOT_CHECKED',
      'SettledRule MODIFIED',
    ]);
    expect(read.reason).toBe('CloudFormation could not check every resource: Access denied for iam:GetRole');
  });

  it('keeps what it read until the next detection is due (an hour), then starts one; a deploy makes one due at once', async () => {
    const read: ConfigurationWatchReport = {
      state: ConfigurationWatchState.READ,
      detectionId: 'd',
      checkedAt: T0,
      findings: [
        {
          logicalId: 'SettledRule',
          type: 'AWS::Events::Rule',
          status: ConfigurationDriftStatus.MODIFIED,
          properties: [],
        },
      ],
    };
    const quiet = cloudFormation({});
    expect(await watchConfiguration(SETTINGS, quiet.calls, read, T0 + 59 * MIN)).toMatchObject({
      state: ConfigurationWatchState.READ,
      findings: read.findings,
    });
    expect(quiet.started).toEqual([]);
    const due = await watchConfiguration(SETTINGS, quiet.calls, read, T0 + 60 * MIN);
    expect(due).toMatchObject({ state: ConfigurationWatchState.STARTED, findings: read.findings });
    // A redeploy after the read: what was read no longer counts, and a detection starts now.
    const redeployed = cloudFormation({ updatedAt: T0 + 5 * MIN });
    expect(await watchConfiguration(SETTINGS, redeployed.calls, read, T0 + 10 * MIN)).toMatchObject({
      state: ConfigurationWatchState.STARTED,
      findings: [],
    });
  });

  it('starts and reads nothing while the stack changes, keeping what it knew', async () => {
    const { calls, started } = cloudFormation({ status: 'UPDATE_IN_PROGRESS' });
    const report = await watchConfiguration(SETTINGS, calls, undefined, T0);
    expect(report).toMatchObject({ state: ConfigurationWatchState.WAITING, findings: [] });
    expect(report.reason).toMatch(/deploy is under way/);
    expect(started).toEqual([]);
  });

  it("ignores a report someone else wrote: another stack's detection, an unknown one, a check time to come", async () => {
    const other = cloudFormation({
      detections: {
        theirs: {
          stackId: 'arn:aws:cloudformation:sa-east-1:111111111111:stack/Other/9',
          status: 'DETECTION_COMPLETE',
          at: T0,
        },
      },
      drifts: [ruleTarget],
    });
    const planted = { state: ConfigurationWatchState.RUNNING, detectionId: 'theirs', findings: [] };
    expect(await watchConfiguration(SETTINGS, other.calls, planted, T0)).toMatchObject({
      state: ConfigurationWatchState.STARTED,
    });
    const unknown = cloudFormation({});
    expect(
      await watchConfiguration(SETTINGS, unknown.calls, { ...planted, detectionId: 'never-made' }, T0),
    ).toMatchObject({ state: ConfigurationWatchState.STARTED });
    // "Checked" a year from now would put every detection off: a time to come counts as never.
    const future = { state: ConfigurationWatchState.READ, checkedAt: T0 + 365 * 1440 * MIN, findings: [] };
    expect(await watchConfiguration(SETTINGS, unknown.calls, future, T0)).toMatchObject({
      state: ConfigurationWatchState.STARTED,
    });
  });
});
