/**
 * What operators get from a receiver's template: one dashboard of its own, silence as an alarm per
 * route (production only), and a runbook in docs/operations.md named by every alarm.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { BankEventDetailType, BankStage, BankWebhookReceiver } from '../../lib';
import { ReceiverMetric } from '../../contracts/receiver';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';
import { buildHardenedApp } from '../../examples/hardened/app';
import { Runbook } from '../../lib/core/alarms';
import { synthReceiver, testBankConnection } from '../support/cdk';

const dashboardBody = (template: Template): string =>
  JSON.stringify(
    Object.values(template.findResources('AWS::CloudWatch::Dashboard')).map((d) => d.Properties.DashboardBody),
  );
const alarmsOf = (template: Template) => template.findResources('AWS::CloudWatch::Alarm');

describe('the dashboard', () => {
  it("is one per receiver, on its own metrics, with every alarm of the stack in its status widget (consumer rules' too)", () => {
    const { template } = synthReceiver({
      receiverName: 'Billing/Bank',
      boletoContracts: [{}],
      paymentRegistration: {},
    });
    const body = dashboardBody(template);
    expect(Object.keys(template.findResources('AWS::CloudWatch::Dashboard'))).toHaveLength(1);
    for (const title of [
      'Flow: stored → published',
      'Quarantined, not confirmed, recovered, duplicates',
      'The bank: 429s, failures, deferrals',
      'Queue ages (seconds)',
      'Dead-letter queues (messages)',
      'Reconciliation sweep',
      'Registration watch',
      'Alarms',
    ]) {
      expect(body).toContain(title);
    }
    expect(body).toContain('\\"receiver\\",\\"Billing/Bank\\"');
    for (const id of Object.keys(alarmsOf(template))) expect(body).toContain(id);
  });

  it("shows a consumer rule's dead-letter alarm made after it, and none when dashboard is false", () => {
    const app = new App();
    const stack = new Stack(app, 'S');
    const receiver = new BankWebhookReceiver(stack, 'R', {
      bank: testBankConnection(stack),
      stage: BankStage.PRODUCTION,
    });
    receiver.onVerifiedEvent('Settled', BankEventDetailType.BOLETO_SETTLED, {
      target: new targets.SqsQueue(new sqs.Queue(stack, 'Inbox')),
    });
    const template = Template.fromStack(stack);
    const [ruleAlarm] = Object.keys(template.findResources('AWS::CloudWatch::Alarm')).filter((id) =>
      id.startsWith('RSettledDeadLetterQueueAlarm'),
    );
    expect(dashboardBody(template)).toContain(ruleAlarm);

    const { template: without } = synthReceiver({ dashboard: false });
    without.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
  });

  it('gives two receivers of one stack two dashboards, each on its own receiver', () => {
    const stack = new Stack(new App(), 'Two');
    for (const [id, name] of [
      ['A', 'acct-a'],
      ['B', 'acct-b'],
    ]) {
      const bank = testBankConnection(stack);
      new BankWebhookReceiver(stack, id, {
        bank: {
          ...bank,
          account: {
            ...bank.account,
            conta: id === 'A' ? '1' : '2',
            codigoBeneficiario: id === 'A' ? '11111' : '22222',
          },
        },
        stage: BankStage.PRODUCTION,
        receiverName: name,
      });
    }
    const dashboards = Object.entries(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(2);
    for (const [id, dashboard] of dashboards) {
      const body = JSON.stringify(dashboard.Properties.DashboardBody);
      const [mine, other] = id.startsWith('A') ? ['acct-a', 'acct-b'] : ['acct-b', 'acct-a'];
      expect(body).toContain(`\\"${mine}\\"`);
      expect(body).not.toContain(`\\"${other}\\"`);
    }
  });
});

describe('silence as an alarm', () => {
  const routeOf = (alarm: { Dimensions: Array<{ Name: string; Value: string }> }) =>
    alarm.Dimensions.find((d) => d.Name === 'Route')!.Value;
  const silence = (template: Template) =>
    Object.values(alarmsOf(template))
      .filter((a) => a.Properties.MetricName === ReceiverMetric.STORED)
      .map((a) => a.Properties);

  it('watches each route a production receiver registers: no notification stored for 96 hours, no data counting as none', () => {
    const { template } = synthReceiver({ boletoContracts: [{}], paymentRegistration: {} });
    const alarms = silence(template);
    expect(alarms.map(routeOf).sort()).toEqual(['boleto', 'payments']);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({
        Period: 3600,
        EvaluationPeriods: 96,
        DatapointsToAlarm: 96,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'breaching',
        AlarmDescription: expect.stringMatching(
          /^No notification was stored on \/(boleto|payments) for 96 hours: .*registration watch.* Runbook: cdk-bank-webhooks\/docs\/operations\.md#silencealarm$/,
        ),
      });
    }
  });

  it('watches only the route it registers; both when it registers neither in production; none in NON_PRODUCTION', () => {
    expect(silence(synthReceiver({ boletoContracts: [{}] }).template).map(routeOf)).toEqual(['boleto']);
    expect(silence(synthReceiver({}).template)).toHaveLength(2);
    expect(silence(synthReceiver({ stage: BankStage.NON_PRODUCTION }).template)).toHaveLength(0);
  });

  it('takes a window per route (0 turns it off) and refuses one CloudWatch cannot evaluate', () => {
    const alarms = silence(
      synthReceiver({ silenceAlarms: { boletoWindow: Duration.hours(72), paymentsWindow: Duration.hours(0) } })
        .template,
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ EvaluationPeriods: 72 });
    expect(() =>
      synthReceiver({ silenceAlarms: { boletoWindow: Duration.days(8), paymentsWindow: Duration.minutes(90) } }),
    ).toThrow(
      /silenceAlarms\.boletoWindow: must be whole hours from 0 \(no alarm\) to 168[\s\S]*silenceAlarms\.paymentsWindow: must be whole hours/,
    );
  });
});

describe('runbooks', () => {
  const operations = readFileSync(join(__dirname, '../../docs/operations.md'), 'utf8');
  /** GitHub's anchor of a heading. */
  const anchorOf = (heading: string) =>
    heading
      .replace(/^#+ /, '')
      .trim()
      .toLowerCase()
      .replace(/[^\w\- ]/g, '')
      .replace(/ /g, '-');
  const anchors = new Set(
    operations
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map(anchorOf),
  );

  it('every alarm of every example names a section of docs/operations.md that says how to diagnose and fix it', () => {
    const hardened = buildHardenedApp(new App()).node.children.filter((c): c is Stack => c instanceof Stack);
    const basic = new BankWebhooksExampleStack(new App(), 'BankWebhooksExample');
    const templates = [basic, ...hardened].map((stack) => Template.fromStack(stack));
    let count = 0;
    for (const template of templates) {
      for (const [id, alarm] of Object.entries(alarmsOf(template))) {
        const match = / Runbook: cdk-bank-webhooks\/docs\/operations\.md#([\w-]+)$/.exec(
          String(alarm.Properties.AlarmDescription),
        );
        expect({ id, runbook: match?.[1] && anchors.has(match[1]) ? 'found' : (match?.[1] ?? 'none') }).toEqual({
          id,
          runbook: 'found',
        });
        count++;
      }
    }
    expect(count).toBeGreaterThan(20);
  });

  it('has a section for every runbook, each saying what to check and what to do', () => {
    const sections = operations
      .split('\n## Runbooks\n')[1]
      .split('\n## ')[0]
      .split(/\n(?=### )/)
      .filter((s) => s.startsWith('### '));
    const byAnchor = new Map(sections.map((section) => [anchorOf(section.split('\n')[0]), section]));
    for (const runbook of Object.values(Runbook)) {
      const section = byAnchor.get(runbook) ?? '';
      expect({ runbook, hasCheck: section.includes('**Check**'), hasFix: section.includes('**Fix**') }).toEqual({
        runbook,
        hasCheck: true,
        hasFix: true,
      });
    }
  });
});
