/**
 * A receiver stack's template made local: synthesized with its bank settings pointed at the
 * simulator, and its values (`Ref`, `Fn::GetAtt`, the API's URL) resolved against the stand-ins.
 */
import { App, type Stack } from 'aws-cdk-lib';
import { SimulatorPaths } from '../../simulator/simulator';
import type { RunnerBank } from './bank-credentials';
import { LOCAL_AWS, localStackId } from '../local-aws/local-env';
import { PIX_KEYS_CONTEXT_KEY, type RUNNER_CONTEXT_KEYS } from './local-stack';
import { pixKeysOf } from '../../simulator/model';
import { type CloudFormationTemplate, type ReceiverDeployment, resolveIntrinsics, ruleLogicalId } from './template';

/** The id the API gets locally (its deployed URL is rewritten to the front door's). */
const LOCAL_API_ID = 'localapi';

/** Synthesizes the stack `build` makes into `outdir`, its context pointing the bank at `simulator`, with asset metadata on (as the CDK CLI does). */
export function synthesizeLocalStack(
  outdir: string,
  simulator: Pick<RunnerBank, 'baseUrl' | 'accounts'>,
  stackId: string,
  build: (app: App, id: string) => Stack,
): CloudFormationTemplate {
  const account = simulator.accounts[0];
  const app = new App({
    outdir,
    context: {
      'aws:cdk:enable-asset-metadata': true,
      bankBaseUrl: simulator.baseUrl,
      bankRegistrationBaseUrl: simulator.baseUrl + SimulatorPaths.registrationBase,
      bankCooperativa: account.cooperativa,
      bankPosto: account.posto,
      bankConta: account.conta,
      bankDocumento: account.documento,
      bankCodigoBeneficiario: account.beneficiario,
      [PIX_KEYS_CONTEXT_KEY]: JSON.stringify(pixKeysOf(simulator.accounts)),
    } satisfies Record<(typeof RUNNER_CONTEXT_KEYS)[number], string> & Record<string, unknown>,
  });
  const stack = build(app, stackId);
  return app.synth().getStackArtifact(stack.artifactId).template as CloudFormationTemplate;
}

/** What the stand-ins made of the template's stateful resources. */
export interface LocalResources {
  /** URLs of the queues made (both queues and their dead-letter queues), by logical id. */
  readonly queueUrls: ReadonlyMap<string, string>;
  /** ARNs of the generated secrets, by logical id. */
  readonly secretArns: ReadonlyMap<string, string>;
  /** The front door's stage URL. */
  readonly apiUrl: string;
  /** The Pix API's front door, without a trailing slash (a receiver with `pix`). */
  readonly pixApiUrl?: string;
}

/** The Pix API's id locally. */
const LOCAL_PIX_API_ID = 'localpixapi';

/** The name a bucket of the template has locally (S3 names are lower case). */
export function localBucketName(logicalId: string): string {
  return logicalId.toLowerCase();
}

/** Resolves template values against the local stand-ins. */
export class LocalResolver {
  constructor(
    private readonly template: CloudFormationTemplate,
    private readonly deployment: ReceiverDeployment,
    private readonly local: LocalResources,
    private readonly stackName: string,
  ) {}

  /** A template value with its intrinsics resolved; the API's deployed URL becomes the front door's. */
  resolve(value: unknown): unknown {
    const d = this.deployment;
    const resources = this.template.Resources;
    const resolved = resolveIntrinsics(value, {
      region: LOCAL_AWS.region,
      accountId: LOCAL_AWS.accountId,
      stackId: localStackId(this.stackName),
      stackName: this.stackName,
      ref: (id) => {
        const type = resources[id]?.Type;
        if (this.local.queueUrls.has(id)) return this.local.queueUrls.get(id)!;
        if (this.local.secretArns.has(id)) return this.local.secretArns.get(id)!;
        if (id === d.api.restApi) return LOCAL_API_ID;
        if (id === d.api.stage) return d.api.stageName;
        if (id === d.pixApi?.restApi) return LOCAL_PIX_API_ID;
        if (id === d.pixApi?.stage) return d.pixApi.stageName;
        // Named by their logical ids locally (the local CloudWatch answers alarms by them).
        if (
          type === 'AWS::DynamoDB::Table' ||
          type === 'AWS::Events::EventBus' ||
          type === 'AWS::Events::Archive' ||
          type === 'AWS::Lambda::Function' ||
          type === 'AWS::CloudWatch::Alarm' ||
          type === 'AWS::Logs::LogGroup'
        )
          return id;
        if (type === 'AWS::S3::Bucket') return localBucketName(id);
        throw new Error(`The local runner has no stand-in for Ref ${id} (${type ?? 'not in the template'})`);
      },
      getAtt: (id, attribute) => {
        const type = resources[id]?.Type;
        const arnOf: Record<string, string> = {
          'AWS::SQS::Queue': `arn:aws:sqs:${LOCAL_AWS.region}:${LOCAL_AWS.accountId}:${id}`,
          'AWS::DynamoDB::Table': `arn:aws:dynamodb:${LOCAL_AWS.region}:${LOCAL_AWS.accountId}:table/${id}`,
          'AWS::Events::EventBus': `arn:aws:events:${LOCAL_AWS.region}:${LOCAL_AWS.accountId}:event-bus/${id}`,
          'AWS::S3::Bucket': `arn:aws:s3:::${localBucketName(id)}`,
        };
        if (attribute === 'Arn' && type && arnOf[type]) return arnOf[type];
        if (attribute === 'Name' && type === 'AWS::Events::EventBus') return id;
        if (attribute === 'QueueUrl' && this.local.queueUrls.has(id)) return this.local.queueUrls.get(id)!;
        // The local SQS names every sender by the account (fauxqs's SenderId): every local role is that one.
        if (attribute === 'RoleId' && type === 'AWS::IAM::Role') return LOCAL_AWS.accountId;
        throw new Error(
          `The local runner has no stand-in for Fn::GetAtt ${id}.${attribute} (${type ?? 'not in the template'})`,
        );
      },
    });
    const deployedUrl = `https://${LOCAL_API_ID}.execute-api.${LOCAL_AWS.region}.amazonaws.com/${d.api.stageName}/`;
    const pixUrl =
      d.pixApi && this.local.pixApiUrl
        ? ([
            `https://${LOCAL_PIX_API_ID}.execute-api.${LOCAL_AWS.region}.amazonaws.com/${d.pixApi.stageName}`,
            this.local.pixApiUrl,
          ] as const)
        : undefined;
    const rewrite = (item: unknown): unknown => {
      if (typeof item === 'string') {
        const local = item.split(deployedUrl).join(this.local.apiUrl);
        return pixUrl ? local.split(pixUrl[0]).join(pixUrl[1]) : local;
      }
      if (Array.isArray(item)) return item.map(rewrite);
      if (item && typeof item === 'object')
        return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, rewrite(v)]));
      return item;
    };
    return rewrite(resolved);
  }

  /** The event pattern of the template's one rule whose logical ID starts with `prefix`. */
  rulePattern(prefix: string): Record<string, unknown> {
    return this.resolve(
      this.template.Resources[ruleLogicalId(this.template, prefix)].Properties?.EventPattern,
    ) as Record<string, unknown>;
  }
}
