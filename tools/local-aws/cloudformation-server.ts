import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackServer, readRequestBody } from './json-protocol-server';

const xml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A stack output as DescribeStacks answers it. */
export interface StackOutput {
  readonly key: string;
  readonly value: string;
  readonly description?: string;
}

/**
 * A local endpoint that answers CloudFormation's DescribeStacks (the AWS query protocol: a form
 * in, XML out) for the stacks a test declares, so the real `@aws-sdk/client-cloudformation` can be
 * pointed at it (`AWS_ENDPOINT_URL_CLOUDFORMATION`). The registration watch reads its own stack's
 * status this way; a test moves the status as a deploy would (setStatus); the operator CLI reads
 * the receiver's manifest among its outputs (setOutputs). Loopback only.
 */
export class LocalCloudFormation extends LoopbackServer {
  private readonly stacks = new Map<string, { name: string; status: string; outputs?: readonly StackOutput[] }>();
  /** Every DescribeStacks asked for, by stack id or name. */
  readonly calls: string[] = [];

  constructor() {
    super('CloudFormation');
  }

  /** Declares a stack (or moves its status), by its id (ARN). */
  setStatus(stackId: string, status: string): void {
    const name = stackId.split('/')[1] ?? stackId;
    this.stacks.set(stackId, { ...this.stacks.get(stackId), name, status });
  }

  /** The outputs a declared stack answers (its template's, resolved). */
  setOutputs(stackId: string, outputs: readonly StackOutput[]): void {
    const stack = this.stacks.get(stackId);
    if (!stack) throw new Error(`The local CloudFormation has no stack ${stackId}`);
    this.stacks.set(stackId, { ...stack, outputs });
  }

  status(stackId: string): string | undefined {
    return this.stacks.get(stackId)?.status;
  }

  protected async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams((await readRequestBody(req)).toString('utf8'));
    const reply = (status: number, body: string) => {
      res.writeHead(status, { 'Content-Type': 'text/xml' });
      res.end(`<?xml version="1.0"?>\n${body}`);
    };
    const error = (code: string, message: string) =>
      reply(
        400,
        `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>local</RequestId></ErrorResponse>`,
      );
    if (form.get('Action') !== 'DescribeStacks')
      return error(
        'InvalidAction',
        `Action ${form.get('Action') ?? '(none)'} is not supported by the local CloudFormation`,
      );
    const asked = form.get('StackName') ?? '';
    this.calls.push(asked);
    const found = [...this.stacks.entries()].find(([id, s]) => id === asked || s.name === asked);
    if (!found) return error('ValidationError', `Stack with id ${asked} does not exist`);
    const [id, stack] = found;
    reply(
      200,
      '<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>' +
        `<StackName>${xml(stack.name)}</StackName><StackId>${xml(id)}</StackId><StackStatus>${xml(stack.status)}</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime>` +
        `<Outputs>${(stack.outputs ?? []).map((o) => `<member><OutputKey>${xml(o.key)}</OutputKey><OutputValue>${xml(o.value)}</OutputValue>${o.description ? `<Description>${xml(o.description)}</Description>` : ''}</member>`).join('')}</Outputs>` +
        '</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>local</RequestId></ResponseMetadata></DescribeStacksResponse>',
    );
  }
}
