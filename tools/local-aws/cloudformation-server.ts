import { randomUUID } from 'node:crypto';
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

/** A resource's drift as the stand-in answers DescribeStackResourceDrifts. */
export interface LocalResourceDrift {
  readonly logicalId: string;
  readonly type: string;
  /** IN_SYNC, MODIFIED, DELETED or NOT_CHECKED. */
  readonly status: string;
  /** The differing properties' paths. */
  readonly properties?: readonly string[];
}

interface LocalStack {
  name: string;
  status: string;
  outputs?: readonly StackOutput[];
  /** When it was last updated (a deploy), epoch ms. */
  updatedAt: number;
}

const NS = 'xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"';
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A local endpoint that answers CloudFormation's DescribeStacks (the AWS query protocol: a form
 * in, XML out) for the stacks a test declares, so the real `@aws-sdk/client-cloudformation` can be
 * pointed at it (`AWS_ENDPOINT_URL_CLOUDFORMATION`). The registration watch reads its own stack's
 * status this way; a test moves the status as a deploy would (setStatus); the operator CLI reads
 * the receiver's manifest among its outputs (setOutputs). It also runs drift detections
 * (DetectStackDrift, DescribeStackDriftDetectionStatus, DescribeStackResourceDrifts) with the
 * drift a detector computes at the moment of detection (setDriftDetector: the local runner compares
 * the template with the stand-ins' state); a detection completes at once. Loopback only.
 */
export class LocalCloudFormation extends LoopbackServer {
  private readonly stacks = new Map<string, LocalStack>();
  private readonly detections = new Map<
    string,
    { stackId: string; at: number; drifts: readonly LocalResourceDrift[] }
  >();
  /** The last detection's results, by stack. */
  private readonly lastDrifts = new Map<string, { at: number; drifts: readonly LocalResourceDrift[] }>();
  private detector: (stackId: string) => Promise<readonly LocalResourceDrift[]> = () => Promise.resolve([]);
  /** Every DescribeStacks asked for, by stack id or name. */
  readonly calls: string[] = [];
  /** Every detection started, by stack id. */
  readonly detectionsStarted: string[] = [];

  constructor() {
    super('CloudFormation');
  }

  /** Declares a stack (or moves its status), by its id (ARN): a completed status after another is a deploy, which updates it. */
  setStatus(stackId: string, status: string): void {
    const name = stackId.split('/')[1] ?? stackId;
    const before = this.stacks.get(stackId);
    const deployed = !before || (before.status !== status && status.endsWith('_COMPLETE'));
    this.stacks.set(stackId, { ...before, name, status, updatedAt: deployed ? Date.now() : before.updatedAt });
  }

  /** The outputs a declared stack answers (its template's, resolved). */
  setOutputs(stackId: string, outputs: readonly StackOutput[]): void {
    const stack = this.stacks.get(stackId);
    if (!stack) throw new Error(`The local CloudFormation has no stack ${stackId}`);
    this.stacks.set(stackId, { ...stack, outputs });
  }

  /** What a detection finds: the drift of each resource the detector checks, computed when the detection starts. */
  setDriftDetector(detector: (stackId: string) => Promise<readonly LocalResourceDrift[]>): void {
    this.detector = detector;
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
    const ok = (action: string, result: string) =>
      reply(
        200,
        `<${action}Response ${NS}><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>local</RequestId></ResponseMetadata></${action}Response>`,
      );
    const action = form.get('Action') ?? '';
    if (action === 'DescribeStackDriftDetectionStatus') {
      const id = form.get('StackDriftDetectionId') ?? '';
      const detection = this.detections.get(id);
      if (!detection) return error('ValidationError', `No drift detection ${id}`);
      const drifted = detection.drifts.some((d) => d.status !== 'IN_SYNC');
      return ok(
        action,
        `<StackId>${xml(detection.stackId)}</StackId><StackDriftDetectionId>${xml(id)}</StackDriftDetectionId>` +
          `<StackDriftStatus>${drifted ? 'DRIFTED' : 'IN_SYNC'}</StackDriftStatus><DetectionStatus>DETECTION_COMPLETE</DetectionStatus>` +
          `<DriftedStackResourceCount>${detection.drifts.filter((d) => d.status !== 'IN_SYNC').length}</DriftedStackResourceCount><Timestamp>${iso(detection.at)}</Timestamp>`,
      );
    }
    if (!['DescribeStacks', 'DetectStackDrift', 'DescribeStackResourceDrifts'].includes(action))
      return error('InvalidAction', `Action ${action || '(none)'} is not supported by the local CloudFormation`);
    const asked = form.get('StackName') ?? '';
    this.calls.push(asked);
    const found = [...this.stacks.entries()].find(([id, s]) => id === asked || s.name === asked);
    if (!found) return error('ValidationError', `Stack with id ${asked} does not exist`);
    const [id, stack] = found;
    if (action === 'DetectStackDrift') {
      const detectionId = randomUUID();
      const at = Date.now();
      const drifts = await this.detector(id);
      this.detections.set(detectionId, { stackId: id, at, drifts });
      this.lastDrifts.set(id, { at, drifts });
      this.detectionsStarted.push(id);
      return ok(action, `<StackDriftDetectionId>${detectionId}</StackDriftDetectionId>`);
    }
    if (action === 'DescribeStackResourceDrifts') {
      const wanted = [...form.entries()]
        .filter(([key]) => key.startsWith('StackResourceDriftStatusFilters.'))
        .map(([, v]) => v);
      const last = this.lastDrifts.get(id);
      const drifts = (last?.drifts ?? []).filter((d) => !wanted.length || wanted.includes(d.status));
      return ok(
        action,
        `<StackResourceDrifts>${drifts
          .map(
            (d) =>
              `<member><StackId>${xml(id)}</StackId><LogicalResourceId>${xml(d.logicalId)}</LogicalResourceId><ResourceType>${xml(d.type)}</ResourceType>` +
              `<StackResourceDriftStatus>${xml(d.status)}</StackResourceDriftStatus><Timestamp>${iso(last!.at)}</Timestamp>` +
              `<PropertyDifferences>${(d.properties ?? []).map((p) => `<member><PropertyPath>${xml(p)}</PropertyPath><ExpectedValue>-</ExpectedValue><ActualValue>-</ActualValue><DifferenceType>NOT_EQUAL</DifferenceType></member>`).join('')}</PropertyDifferences></member>`,
          )
          .join('')}</StackResourceDrifts>`,
      );
    }
    ok(
      'DescribeStacks',
      '<Stacks><member>' +
        `<StackName>${xml(stack.name)}</StackName><StackId>${xml(id)}</StackId><StackStatus>${xml(stack.status)}</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime><LastUpdatedTime>${iso(stack.updatedAt)}</LastUpdatedTime>` +
        `<Outputs>${(stack.outputs ?? []).map((o) => `<member><OutputKey>${xml(o.key)}</OutputKey><OutputValue>${xml(o.value)}</OutputValue>${o.description ? `<Description>${xml(o.description)}</Description>` : ''}</member>`).join('')}</Outputs>` +
        '</member></Stacks>',
    );
  }
}
