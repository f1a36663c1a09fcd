/**
 * Drift of the stack's own configuration, over the local runner: the sweep's configuration watch
 * starts a drift detection in the local CloudFormation, which compares the template with the local
 * EventBridge's rules and the local SQS's queue policies. Changing a consumer rule's target through
 * the EventBridge API and a queue's policy through SQS, as a principal of the account could, is what
 * raises ConfigurationDriftAlarm, and `status` names both.
 */
import { EventBridgeClient, ListTargetsByRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { ConfigurationWatchState } from '../../../contracts/configuration-drift';
import { CliExit } from '../../../contracts/operations';
import type { LocalRunner } from '../../../tools/local-runner/runner';
import { startE2eRunner, stopE2eRunner } from '../../support/e2e-runner';

jest.setTimeout(180_000);

let runner: LocalRunner;
beforeAll(async () => {
  runner = await startE2eRunner();
});
afterAll(() => stopE2eRunner(runner));

const logicalId = (prefix: string, type: string) =>
  Object.keys(runner.template.Resources).find(
    (id) => id.startsWith(prefix) && runner.template.Resources[id].Type === type,
  )!;
const driftAlarm = () =>
  Object.entries(runner.alarmStates()).find(([id]) => id.includes('ConfigurationDriftAlarm'))?.[1];

it('sees a rewritten rule target and a replaced queue policy, alarms, and status names them', async () => {
  // The first sweep starts a detection; the next reads it: all in sync.
  expect((await runner.sweep()).configuration?.state).toBe(ConfigurationWatchState.STARTED);
  const clean = await runner.sweep();
  expect(clean.configuration).toMatchObject({ state: ConfigurationWatchState.READ, findings: [] });
  expect(driftAlarm()).toBe('OK');

  const aws = runner.operatorAws();
  const config = { region: aws.region, credentials: aws.credentials };
  // The example's consumer rule (onVerifiedEvent into its inbox queue): its target made to deliver a forged "verified" event.
  const rule = logicalId('BankWebhooksBoletoSettledRule', 'AWS::Events::Rule');
  const events = new EventBridgeClient({ ...config, endpoint: aws.endpoints!.EVENTBRIDGE });
  const { Targets: [target] = [] } = await events.send(new ListTargetsByRuleCommand({ Rule: rule }));
  await events.send(
    new PutTargetsCommand({
      Rule: rule,
      Targets: [
        { ...target, Id: target.Id!, Arn: target.Arn!, Input: JSON.stringify({ 'detail-type': 'Boleto Settled' }) },
      ],
    }),
  );
  // The notification queue's policy replaced, its deny on other senders gone.
  const queuePolicy = Object.keys(runner.template.Resources).find((id) => {
    const r = runner.template.Resources[id];
    return (
      r.Type === 'AWS::SQS::QueuePolicy' &&
      JSON.stringify(r.Properties?.Queues) === JSON.stringify([{ Ref: runner.deployment.queue.logicalId }])
    );
  })!;
  await runner.sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl: runner.queueUrl,
      Attributes: { Policy: JSON.stringify({ Version: '2012-10-17', Statement: [] }) },
    }),
  );

  expect((await runner.sweep()).configuration?.state).toBe(ConfigurationWatchState.STARTED);
  const drifted = await runner.sweep();
  expect(drifted.configuration?.findings).toEqual(
    [
      { logicalId: rule, type: 'AWS::Events::Rule', status: 'MODIFIED', properties: ['/Targets/0/Input'] },
      { logicalId: queuePolicy, type: 'AWS::SQS::QueuePolicy', status: 'MODIFIED', properties: ['/PolicyDocument'] },
    ].sort((a, b) => a.logicalId.localeCompare(b.logicalId)),
  );
  expect(driftAlarm()).toBe('ALARM');

  const { status, out } = await runner.operate(['status']);
  expect(status).toBe(CliExit.ATTENTION);
  expect(out).toContain(
    '2 resource(s) differ from the template. Runbook: cdk-bank-webhooks/docs/operations.md#configurationdriftalarm',
  );
  expect(out).toMatch(new RegExp(`${rule}\\s+AWS::Events::Rule\\s+MODIFIED\\s+/Targets/0/Input`));
  expect(out).toMatch(new RegExp(`${queuePolicy}\\s+AWS::SQS::QueuePolicy\\s+MODIFIED\\s+/PolicyDocument`));
});
