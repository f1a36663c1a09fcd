/**
 * An OTLP/HTTP (JSON) trace receiver on 127.0.0.1 for the local runner: the spans of every traced
 * local function arrive here (`POST /v1/traces`), and a trace prints as a tree.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackServer, readRequestBody } from './json-protocol-server';

/** One span as the collector keeps it. */
export interface CollectedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** The function that made it (its resource's `service.name`). */
  readonly service: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly error: boolean;
  /** The span contexts it links to (`traceId-spanId`). */
  readonly links: readonly string[];
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttributes = ReadonlyArray<{ key: string; value: OtlpValue }> | undefined;
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttributes;
  status?: { code?: number };
  links?: Array<{ traceId: string; spanId: string }>;
}
interface OtlpRequest {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpAttributes }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

/** An id as hex: OTLP/JSON says hex, and a base64 id (protobuf's JSON mapping) is read too. */
function hexId(id: string | undefined): string | undefined {
  if (!id) return undefined;
  if (/^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

function attributesOf(list: OtlpAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const v =
      value.stringValue ??
      value.boolValue ??
      value.doubleValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

export class OtlpCollector extends LoopbackServer {
  readonly spans: CollectedSpan[] = [];

  constructor() {
    super('OTLP collector');
  }

  /** Where a function's exporter sends spans. */
  get tracesUrl(): string {
    return `${this.endpoint}/v1/traces`;
  }

  protected async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readRequestBody(req);
    if (req.method !== 'POST' || req.url !== '/v1/traces' || !/json/.test(req.headers['content-type'] ?? '')) {
      res
        .writeHead(415, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: 'This collector takes OTLP/HTTP JSON traces at POST /v1/traces' }));
      return;
    }
    try {
      this.add(JSON.parse(body.toString('utf8')) as OtlpRequest);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } catch (error) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: (error as Error).message }));
    }
  }

  private add(request: OtlpRequest): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? 'unknown');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: hexId(span.traceId)!,
            spanId: hexId(span.spanId)!,
            parentSpanId: hexId(span.parentSpanId),
            name: span.name,
            service,
            startNs: BigInt(span.startTimeUnixNano),
            endNs: BigInt(span.endTimeUnixNano),
            attributes: attributesOf(span.attributes),
            error: span.status?.code === 2,
            links: (span.links ?? []).map((link) => `${hexId(link.traceId)}-${hexId(link.spanId)}`),
          });
        }
      }
    }
  }

  /** The spans of one trace. */
  trace(traceId: string): CollectedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /**
   * One trace as indented lines, children under their parent in start order: the span, the
   * function that made it, its duration, and from the trace's start.
   */
  tree(traceId: string): string[] {
    const spans = this.trace(traceId).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
    if (!spans.length) return [];
    const ids = new Set(spans.map((s) => s.spanId));
    const start = spans[0].startNs;
    const lines: string[] = [];
    const ms = (ns: bigint) => `${(Number(ns) / 1e6).toFixed(0)} ms`;
    const walk = (span: CollectedSpan, depth: number) => {
      lines.push(
        `${'  '.repeat(depth)}${span.name}  [${span.service}]  ${ms(span.endNs - span.startNs)}  (+${ms(span.startNs - start)})${span.error ? '  ERROR' : ''}`,
      );
      for (const child of spans.filter((s) => s.parentSpanId === span.spanId)) walk(child, depth + 1);
    };
    for (const root of spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))) walk(root, 0);
    return lines;
  }
}
