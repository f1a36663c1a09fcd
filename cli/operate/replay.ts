/**
 * `cdk-bank-webhooks replay --from --to --rule <name>`: the receiver's bus archive replayed to one
 * rule (EventBridge's replay with the rule as its only filter), never to every rule: the healthy
 * consumers would get their events twice. For a consumer that was broken for a while.
 */
import {
  DescribeArchiveCommand,
  DescribeReplayCommand,
  DescribeRuleCommand,
  ListRulesCommand,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { CliExit, OperatorDefaults, type OperatorManifest } from '../../contracts/operations';
import { type AwsClients, OperatorError } from './aws';

export interface ReplayStarted {
  readonly name: string;
  readonly ruleArn: string;
  readonly archive: string;
  readonly state: string;
}

/** The rules on the receiver's bus, by name (for an operator who named one that is not there). */
async function ruleNames(aws: AwsClients, busName: string): Promise<string[]> {
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await aws.events.send(new ListRulesCommand({ EventBusName: busName, NextToken: token }));
    names.push(...(page.Rules ?? []).map((rule) => rule.Name!));
    token = page.NextToken;
  } while (token);
  return names;
}

/** Checks the window (its end already cut to now): in order, and no wider than the archive keeps by default. */
export function checkReplayWindow(from: number, to: number): void {
  if (to < from)
    throw new OperatorError(
      `--to (${new Date(to).toISOString()}) is before --from (${new Date(from).toISOString()}).`,
      CliExit.USAGE,
    );
  const days = (to - from) / 86_400_000;
  if (days > OperatorDefaults.replayMaxWindowDays) {
    throw new OperatorError(
      `The window is ${days.toFixed(1)} days wide; replay takes at most ${OperatorDefaults.replayMaxWindowDays} days (the archive keeps ${OperatorDefaults.replayMaxWindowDays} by default).`,
      CliExit.USAGE,
    );
  }
}

/** Starts a replay of the archive's events of [from, to] to the one rule `rule` of the receiver's bus. */
export async function startReplay(
  aws: AwsClients,
  manifest: OperatorManifest,
  rule: string,
  from: number,
  to: number,
  now: number,
): Promise<ReplayStarted> {
  const archive = manifest.bus.archive;
  if (!archive) {
    throw new OperatorError(
      `Receiver ${manifest.receiverName} publishes on a bus it did not create (the eventBus prop), so it has no archive to replay: replay from that bus's own archive, naming one rule (aws events start-replay … --destination Arn=<bus arn>,FilterArns=<rule arn>).`,
      CliExit.NOT_FOUND,
    );
  }
  let ruleArn: string;
  try {
    ruleArn = (await aws.events.send(new DescribeRuleCommand({ Name: rule, EventBusName: manifest.bus.name }))).Arn!;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    const names = await ruleNames(aws, manifest.bus.name);
    throw new OperatorError(
      `No rule "${rule}" on the receiver's bus ${manifest.bus.name}${names.length ? ` (its rules: ${names.join(', ')})` : ''}.`,
      CliExit.NOT_FOUND,
    );
  }
  const { ArchiveArn: archiveArn } = await aws.events.send(new DescribeArchiveCommand({ ArchiveName: archive }));
  // Replay names: 64 characters of [.\-_A-Za-z0-9], unique in the account and region.
  const name = `cbw-${rule.replace(/[^.\-_A-Za-z0-9]/g, '_').slice(0, 40)}-${new Date(now).toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const started = await aws.events.send(
    new StartReplayCommand({
      ReplayName: name,
      Description: `cdk-bank-webhooks replay of ${manifest.receiverName}'s archive to the rule ${rule} alone`,
      EventSourceArn: archiveArn,
      EventStartTime: new Date(from),
      EventEndTime: new Date(to),
      Destination: { Arn: manifest.bus.arn, FilterArns: [ruleArn] },
    }),
  );
  return { name, ruleArn, archive, state: started.State ?? 'STARTING' };
}

/** Waits for a replay to end (COMPLETED, FAILED or CANCELLED), polling every `everyMs`, for at most `forMs`; returns its last state and reason. */
export async function waitForReplay(
  aws: AwsClients,
  name: string,
  forMs: number,
  everyMs = 5_000,
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): Promise<{ state: string; reason?: string }> {
  const until = Date.now() + forMs;
  for (;;) {
    const replay = await aws.events.send(new DescribeReplayCommand({ ReplayName: name }));
    const state = replay.State ?? 'UNKNOWN';
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(state) || Date.now() + everyMs > until)
      return { state, ...(replay.StateReason ? { reason: replay.StateReason } : {}) };
    await sleep(everyMs);
  }
}
