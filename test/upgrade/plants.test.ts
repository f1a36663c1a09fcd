/**
 * The upgrade gate catches what it is for. Each plant is a change made to an app as a release might
 * make it (through the construct tree, then synthesized), judged against the committed baseline as
 * the gate judges today's templates: a replaced journal, a token secret whose logical ID moved and a
 * Pix key registration whose properties changed each fail, named with their kind; an added alarm
 * passes. Then the table in docs/changes.md: a row lets a listed break pass, and a row the gate
 * cannot read, or that matches nothing, is a failure of its own.
 */
import { Duration, Stack, type CfnResource } from 'aws-cdk-lib';
import type { App } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { IConstruct } from 'constructs';
import {
  describeChange,
  judge,
  readListedBreaks,
  upgradeChanges,
  UpgradeHazard,
  type TemplateJson,
  type UpgradeChange,
} from '../support/upgrade-gate';
import { UPGRADE_APPS } from './apps';
import { readBaselineManifest, readBaselineTemplate, stackOf, synthesizeForBaseline } from './baseline';

const PIX_APP = 'test/integ/integ.pix-receiver';
const PIX_STACK = 'BankWebhooksIntegPixReceiver';

/** The construct at the end of `path` (below the stack), as the resource it is. */
function cfn(app: App, path: string): CfnResource {
  const found = app.node.findAll().find((c: IConstruct) => c.node.path === `${PIX_STACK}/${path}`);
  if (!found) throw new Error(`no construct at ${PIX_STACK}/${path}`);
  return found as CfnResource;
}

const FILE = `${PIX_STACK}.template.json`;

/** The Pix integ app's test stack, with `plant` applied to it first. */
function template(plant: (app: App, stack: Stack) => void = () => undefined): TemplateJson {
  const templates = synthesizeForBaseline((app) => {
    UPGRADE_APPS[PIX_APP](app);
    plant(app, app.node.findChild(PIX_STACK) as Stack);
  });
  return JSON.parse(templates[FILE]) as TemplateJson;
}

/** Today's app, as the baseline a plant is judged against: only the plant differs (whatever changed since the release is the gate's own test). */
const today = template();

/** Every change `plant` makes to today's app. */
function planted(plant: (app: App, stack: Stack) => void): UpgradeChange[] {
  return upgradeChanges(stackOf(FILE), today, template(plant));
}

const commit = readBaselineManifest().commit;
const failures = (changes: UpgradeChange[]) => judge(changes, [], commit).unlisted.map(describeChange);

describe('the upgrade gate, on planted changes', () => {
  it("passes the app as it is, and today's app against the committed baseline", () => {
    expect(planted(() => undefined)).toEqual([]);
    expect(failures(upgradeChanges(stackOf(FILE), readBaselineTemplate(PIX_APP, FILE), today))).toEqual([]);
  });

  it("fails on the journal's ObjectLockEnabled (creation-only: the bucket is replaced)", () => {
    expect(
      failures(
        planted((app) =>
          cfn(app, 'BankWebhooks/Processor/Journal/Resource').addPropertyOverride('ObjectLockEnabled', true),
        ),
      ),
    ).toEqual([
      `${PIX_STACK}/BankWebhooksProcessorJournal36CB996C (AWS::S3::Bucket, ${PIX_STACK}/BankWebhooks/Processor/Journal/Resource) [replace] would be replaced (a new, empty resource takes its place): replaced: ObjectLockEnabled`,
    ]);
  });

  it("fails on a token secret's logical ID, naming the resource gone and the one added beside it", () => {
    const changes = planted((app) =>
      cfn(app, 'BankWebhooks/Default/BoletoToken/Resource').overrideLogicalId('BankWebhooksBoletoTokenRenamed'),
    );
    expect(failures(changes)).toEqual([
      `${PIX_STACK}/BankWebhooksBoletoToken8ECAB27A (AWS::SecretsManager::Secret, ${PIX_STACK}/BankWebhooks/Default/BoletoToken/Resource) [remove] is gone from the template (removed, or its logical ID changed): the deployed one is deleted or orphaned: removed; added beside it: BankWebhooksBoletoTokenRenamed`,
    ]);
    // The secret's readers now name the new one: updates in place, listed, not failures.
    expect(changes.filter((c) => c.hazard === undefined).map((c) => c.logicalId)).toEqual(
      expect.arrayContaining(['BankWebhooksBoletoTokenRenamed']),
    );
  });

  it("fails on a field of a Pix key registration's properties: its provider would talk to the bank", () => {
    const registration = JSON.stringify({ chave: 'pix@example.com', url: 'https://pix-webhooks.other.example.com' });
    expect(
      failures(
        planted((app) =>
          cfn(app, 'BankWebhooks/PixKey-pix@example.com/Resource/Default').addPropertyOverride(
            'Registration',
            registration,
          ),
        ),
      ),
    ).toEqual([
      `${PIX_STACK}/BankWebhooksPixKeypixexamplecomAD3C6B7C (Custom::BankPixKeyWebhook, ${PIX_STACK}/BankWebhooks/PixKey-pix@example.com/Resource/Default) [reregister] changes its properties: its provider gets an Update on the next deploy (a registration logs in and talks to the bank): properties change: Registration`,
    ]);
  });

  it('passes an added alarm and lists it', () => {
    const changes = planted(
      (_app, stack) =>
        new cloudwatch.Alarm(stack, 'PlantedAlarm', {
          metric: new cloudwatch.Metric({ namespace: 'Planted', metricName: 'Planted', period: Duration.minutes(5) }),
          threshold: 1,
          evaluationPeriods: 1,
        }),
    );
    expect(failures(changes)).toEqual([]);
    expect(changes.map(describeChange)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${PIX_STACK}/PlantedAlarm[0-9A-F]{8} \\(AWS::CloudWatch::Alarm, ${PIX_STACK}/PlantedAlarm/Resource\\): added$`,
        ),
      ),
    ]);
  });

  it('passes an update in place of a stateful resource and lists what changes', () => {
    const changes = planted((app) =>
      cfn(app, 'BankWebhooks/Processor/IdempotencyTable/Resource').addPropertyOverride(
        'DeletionProtectionEnabled',
        false,
      ),
    );
    expect(failures(changes)).toEqual([]);
    expect(changes.map(describeChange)).toEqual([
      `${PIX_STACK}/BankWebhooksProcessorIdempotencyTable4E929585 (AWS::DynamoDB::Table, ${PIX_STACK}/BankWebhooks/Processor/IdempotencyTable/Resource): updated in place: DeletionProtectionEnabled`,
    ]);
  });
});

describe("the upgrade gate's classes", () => {
  const secret = {
    Type: 'AWS::SecretsManager::Secret',
    Properties: { Description: 'token' },
    DeletionPolicy: 'Delete',
  };
  const registration = {
    Type: 'Custom::BankPaymentWebhookRegistration',
    Properties: { ServiceToken: 'arn', Registration: '{}' },
  };
  const logs = {
    Type: 'AWS::Logs::LogGroup',
    Properties: { RetentionInDays: 30 },
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
  };
  const hazards = (before: TemplateJson, after: TemplateJson | undefined) =>
    upgradeChanges('S', before, after).map((c) => [c.logicalId, c.hazard, c.what]);

  it('names a registration added (register) and one gone (unregister)', () => {
    expect(hazards({ Resources: { A: registration } }, { Resources: { B: registration } })).toEqual([
      ['A', UpgradeHazard.UNREGISTER, 'removed; added beside it: B'],
      ['B', UpgradeHazard.REGISTER, 'added'],
    ]);
  });

  it('names a stateful resource that loses its Retain policy (retention), and passes one that gains it', () => {
    expect(
      hazards(
        { Resources: { L: logs } },
        { Resources: { L: { ...logs, DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' } } },
      ),
    ).toEqual([
      ['L', UpgradeHazard.RETENTION, 'DeletionPolicy Retain becomes Delete, UpdateReplacePolicy Retain becomes Delete'],
    ]);
    expect(
      hazards(
        { Resources: { L: { ...logs, DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' } } },
        { Resources: { L: logs } },
      ),
    ).toEqual([['L', undefined, 'DeletionPolicy, UpdateReplacePolicy changed']]);
  });

  it('names a stateful resource whose change may replace it (may-replace) or will (replace), with the properties that do', () => {
    // The resource specification says an instance type change may replace an instance; kept under Retain, it counts as stateful.
    const instance = {
      Type: 'AWS::EC2::Instance',
      Properties: { InstanceType: 't4g.micro', Tags: [] },
      DeletionPolicy: 'Retain',
    };
    expect(
      hazards(
        { Resources: { I: instance } },
        {
          Resources: {
            I: { ...instance, Properties: { InstanceType: 't4g.small', Tags: [{ Key: 'a', Value: 'b' }] } },
          },
        },
      ),
    ).toEqual([['I', UpgradeHazard.MAY_REPLACE, 'may be replaced: InstanceType']]);
    const table = {
      Type: 'AWS::DynamoDB::Table',
      Properties: { KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' },
    };
    expect(
      hazards(
        { Resources: { T: table } },
        {
          Resources: {
            T: {
              ...table,
              Properties: { KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PROVISIONED' },
            },
          },
        },
      ),
    ).toEqual([['T', UpgradeHazard.REPLACE, 'replaced: KeySchema']]);
  });

  it('counts anything kept under a Retain policy as stateful, whatever its type', () => {
    const kept = { Type: 'AWS::Some::Thing', Properties: {}, DeletionPolicy: 'Retain' };
    expect(hazards({ Resources: { K: kept } }, { Resources: {} })).toEqual([['K', UpgradeHazard.REMOVE, 'removed']]);
    expect(hazards({ Resources: { K: { ...kept, DeletionPolicy: undefined } } }, { Resources: {} })).toEqual([
      ['K', undefined, 'removed'],
    ]);
  });

  it('compares a stack gone today with an empty template, and passes a stack the baseline lacks', () => {
    expect(hazards({ Resources: { Token: secret, Registration: registration } }, undefined)).toEqual([
      ['Registration', UpgradeHazard.UNREGISTER, 'removed'],
      ['Token', UpgradeHazard.REMOVE, 'removed'],
    ]);
    expect(upgradeChanges('New', undefined, { Resources: { Registration: registration } })).toEqual([]);
  });
});

describe("docs/changes.md's table of intended breaks", () => {
  const table = (...rows: string[]) =>
    [
      '# Changes',
      '',
      '## Changes that replace or re-register',
      '',
      '| Baseline | Stack | Resource | Change | Migration |',
      '| --- | --- | --- | --- | --- |',
      ...rows,
      '',
      '## What changed',
      '| not | a | row | of | it |',
    ].join('\n');
  const journal: UpgradeChange = {
    stack: 'BankWebhooksExample',
    logicalId: 'BankWebhooksProcessorJournal36CB996C',
    type: 'AWS::S3::Bucket',
    path: 'BankWebhooksExample/BankWebhooks/Processor/Journal/Resource',
    hazard: UpgradeHazard.REPLACE,
    what: 'replaced: ObjectLockEnabled',
  };
  const migration = 'Copy the old journal into the new bucket with S3 Batch Operations, then delete it.';

  it('lets a listed break pass, by logical ID or by construct path, against this baseline only', () => {
    const byPath = readListedBreaks(
      table(`| \`${commit.slice(0, 7)}\` | \`*\` | \`*/Processor/Journal/Resource\` | \`replace\` | ${migration} |`),
    );
    expect(byPath.problems).toEqual([]);
    expect(judge([journal], byPath.breaks, commit)).toMatchObject({
      unlisted: [],
      unmatched: [],
      listed: [{ change: journal, row: { line: 7, migration } }],
    });
    const byId = readListedBreaks(
      table(`| ${commit} | BankWebhooksExample | BankWebhooksProcessorJournal* | replace | ${migration} |`),
    );
    expect(judge([journal], byId.breaks, commit).unlisted).toEqual([]);
    // A row of an older baseline is history: it lets nothing pass and is not stale.
    const older = readListedBreaks(table(`| 0123456 | * | * | replace | ${migration} |`));
    expect(judge([journal], older.breaks, commit)).toMatchObject({ unlisted: [journal], unmatched: [] });
    // A row of another kind lets nothing pass, and is stale.
    const otherKind = readListedBreaks(table(`| ${commit.slice(0, 7)} | * | * | remove | ${migration} |`));
    expect(judge([journal], otherKind.breaks, commit)).toMatchObject({ unlisted: [journal], unmatched: [{ line: 7 }] });
  });

  it('names each row it cannot read, and a table it cannot find', () => {
    const { breaks, problems } = readListedBreaks(
      table(
        `| abc | * | * | replace | ${migration} |`,
        `| ${commit.slice(0, 7)} | * | * | rename | ${migration} |`,
        `| ${commit.slice(0, 7)} | * | * | replace | later |`,
        `| ${commit.slice(0, 7)} | * | replace | ${migration} |`,
      ),
    );
    expect(breaks).toEqual([]);
    expect(problems).toEqual([
      'docs/changes.md line 7: baseline "abc" is not a commit hash (7 to 40 hex digits)',
      `docs/changes.md line 8: change "rename" is not one of ${Object.values(UpgradeHazard).join(', ')}`,
      'docs/changes.md line 9: say how a deployed stack migrates (the migration cell has 5 characters)',
      'docs/changes.md line 10: a row has 5 cells (baseline, stack, resource, change, migration), this one has 4',
    ]);
    expect(readListedBreaks('# Changes\n').problems).toEqual([
      'docs/changes.md has no section "## Changes that replace or re-register": the gate reads intended breaks from its table',
    ]);
  });
});
