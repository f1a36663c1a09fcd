import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { invokeLocally } from './lambda-invoke';

/** The event the CDK provider framework passes to an onEvent handler. */
export interface CustomResourceRequest {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ServiceToken: string;
  readonly ResponseURL: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly ResourceType: string;
  readonly ResourceProperties: Record<string, unknown>;
  readonly OldResourceProperties?: Record<string, unknown>;
  readonly PhysicalResourceId?: string;
}

export interface CustomResourceAnswer {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

export type OnEventHandler = (event: CustomResourceRequest, context: Context) => Promise<CustomResourceAnswer>;

/** A resource as CloudFormation keeps it: its physical id, its properties and what the handler answered. */
export interface CustomResourceState {
  readonly physicalResourceId: string;
  readonly properties: Record<string, unknown>;
  readonly data: Record<string, string>;
}

export interface LocalCustomResourceOptions {
  readonly handler: OnEventHandler;
  readonly resourceType: string;
  /** @default 'Resource' */
  readonly logicalResourceId?: string;
  /** The handler function's timeout. @default 120000 */
  readonly timeoutMs?: number;
  /** The stack's id (ARN) in the events. @default a stack of its own */
  readonly stackId?: string;
}

/**
 * One custom resource driven the way CloudFormation and the CDK provider framework drive it:
 * Create, Update (with the old properties) and Delete events with a counting-down Lambda
 * context. An Update that answers a new physical id is a replacement: CloudFormation deletes the
 * old resource afterwards, with its old properties, which `update()` hands back for `delete()`.
 * A rollback is an Update back to the previous properties.
 */
export class LocalCustomResource {
  /** The resource as it stands after the last successful event, if it exists. */
  state?: CustomResourceState;
  private readonly stackId: string;

  constructor(private readonly options: LocalCustomResourceOptions) {
    this.stackId = options.stackId ?? `arn:aws:cloudformation:us-east-1:000000000000:stack/local/${randomUUID()}`;
  }

  private async send(
    requestType: CustomResourceRequest['RequestType'],
    properties: Record<string, unknown>,
    extra: Partial<CustomResourceRequest> = {},
  ): Promise<CustomResourceAnswer> {
    const event: CustomResourceRequest = {
      RequestType: requestType,
      ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:local-provider-framework',
      ResponseURL: 'https://cloudformation-custom-resource-response.invalid/',
      StackId: this.stackId,
      RequestId: randomUUID(),
      LogicalResourceId: this.options.logicalResourceId ?? 'Resource',
      ResourceType: this.options.resourceType,
      ResourceProperties: { ServiceToken: 'local', ...properties },
      ...extra,
    };
    return invokeLocally(this.options.handler, event, {
      functionName: 'local-registration',
      timeoutMs: this.options.timeoutMs ?? 120_000,
    });
  }

  async create(properties: Record<string, unknown>): Promise<CustomResourceState> {
    const answer = await this.send('Create', properties);
    this.state = { physicalResourceId: answer.PhysicalResourceId, properties, data: answer.Data ?? {} };
    return this.state;
  }

  /** Updates to `properties`; answers the replaced resource when the physical id changed. */
  async update(
    properties: Record<string, unknown>,
  ): Promise<{ state: CustomResourceState; replaced?: CustomResourceState }> {
    const previous = this.requireState('update');
    const answer = await this.send('Update', properties, {
      PhysicalResourceId: previous.physicalResourceId,
      OldResourceProperties: { ServiceToken: 'local', ...previous.properties },
    });
    this.state = { physicalResourceId: answer.PhysicalResourceId, properties, data: answer.Data ?? {} };
    return {
      state: this.state,
      replaced: answer.PhysicalResourceId === previous.physicalResourceId ? undefined : previous,
    };
  }

  /** Deletes `target` (by default the resource itself; a replaced one after an update). */
  async delete(target: CustomResourceState = this.requireState('delete')): Promise<void> {
    await this.send('Delete', target.properties, { PhysicalResourceId: target.physicalResourceId });
    if (target === this.state) this.state = undefined;
  }

  private requireState(what: string): CustomResourceState {
    if (!this.state) throw new Error(`Cannot ${what} a custom resource that was not created`);
    return this.state;
  }
}
