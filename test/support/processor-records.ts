/**
 * Record factories and fake dependencies for pure unit tests of the processor's core (as
 * Powertools' batch tests do): SQS records holding the receiver's envelope, a bank whose answers
 * a test sets, the in-memory subject store, and a bus, a quarantine and a queue that record what
 * they are given. A clock the fake bank advances per query makes deadlines testable without waiting.
 */
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import type { BankQueries, ProcessorDeps, ProcessorQueue, PublishEntry } from '../../lambda/processor/deps';
import {
  EMPTY_RECORD,
  type Outbox,
  type SubjectRecord,
  type SubjectRecordWrite,
  type SubjectStore,
} from '../../lambda/store/subject-store';
import type { BankAccount, PaymentType } from '../../contracts/bank-connection';
import { nossoNumeroOf } from '../../lambda/bank/cooperative/answers';
import { BankApiError } from '../../lambda/bank/errors';
import type { ProcessorSettings } from '../../contracts/processor';
import { encodeStoredNotification } from '../../lambda/store/stored-notification';
import type { LookMarkers } from '../../lambda/store/look-markers';
import { MetricUnit } from '../../lambda/shared/metrics';
import { type Route } from '../../contracts/receiver';
import { detailProblems } from '../../tools/event-schemas';
import { processorSettings } from '../../lib/processor/processor-settings';

export const ACCOUNT: BankAccount = {
  cooperativa: '0101',
  posto: '02',
  conta: '123456',
  documento: '12345678000199',
  codigoBeneficiario: '54321',
};

/** The processor role's unique id in SETTINGS: what SQS gives as the SenderId of what it sent. */
export const PROCESSOR_SENDER_ID = 'AROAPROCESSOR0EXAMPLE';

export const SETTINGS: ProcessorSettings = processorSettings(
  {
    eventBusName: 'bus',
    idempotencyTableName: 'table',
    quarantineQueueUrl: 'https://sqs.local/dlq',
    queueUrl: 'https://sqs.local/queue',
    lookQueueUrl: 'https://sqs.local/looks',
    lookQuarantineQueueUrl: 'https://sqs.local/looks-dlq',
    ownSenderId: PROCESSOR_SENDER_ID,
  },
  { maxReceiveCount: 5, maxVerificationAttempts: 3, safetyMarginMs: 500 },
);

/** An SQS record as Lambda delivers it, holding `body` stored by the receiver on `route`. */
export function sqsRecord(
  route: Route,
  body: unknown,
  options: { receiveCount?: number; requestId?: string; senderId?: string } = {},
): SQSRecord {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return {
    messageId: randomUUID(),
    receiptHandle: 'rh',
    body: encodeStoredNotification(
      {
        route,
        receivedAt: '2025-06-03T17:05:10.000Z',
        requestId: options.requestId ?? randomUUID(),
        contentType: 'application/json',
      },
      raw,
    ),
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: '0',
      SenderId: options.senderId ?? 'AROASOMEONEELSE:sender',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:sa-east-1:111111111111:queue',
    awsRegion: 'sa-east-1',
  };
}

/** An SQS record holding `body` as is (a look request, an event an EventBridge rule delivered). */
export function rawRecord(body: string, options: { receiveCount?: number; senderId?: string } = {}): SQSRecord {
  return { ...sqsRecord('boleto', {}, options), body };
}

/** A message the processor sent back to its queue, as SQS delivers it again (its SenderId is the processor's role). */
export function requeuedRecord(body: string, options: { receiveCount?: number } = {}): SQSRecord {
  return rawRecord(body, { ...options, senderId: `${PROCESSOR_SENDER_ID}:processor-function` });
}

/** A boleto event as the bank delivers it. */
export function boletoEvent(
  nossoNumero: string,
  movimento = 'LIQUIDACAO_PIX',
  valorLiquidacao = '150.25',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    agencia: '0101',
    posto: '02',
    beneficiario: '54321',
    nossoNumero,
    dataEvento: [2025, 6, 3, 14, 5, 9, 0],
    movimento,
    valorLiquidacao,
    idEventoWebhook: randomUUID(),
    ...extra,
  };
}

/** A Pix payment body (the notification equals the query's answer). */
export function pixPayment(idTransacao: string, status: string, valorPagamento = '33.10'): Record<string, unknown> {
  return { idPagamentoPix: 7, idTransacao, status, valorPagamento, endToEnd: `E${idTransacao}` };
}

/** The bank's nine digits of a short test id (`'1001'` is boleto 000001001); other ids as they are. */
export const nine = (id: string): string => nossoNumeroOf(id) ?? id;

/** A map keyed by a boleto's nine-digit nossoNumero, whichever way a test writes it. */
class BoletoIdMap<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    return super.set(nine(key), value);
  }

  override get(key: string): V | undefined {
    return super.get(nine(key));
  }

  override has(key: string): boolean {
    return super.has(nine(key));
  }

  override delete(key: string): boolean {
    return super.delete(nine(key));
  }
}

/** A bank whose boleto and payment answers the test sets; counts queries and advances the clock. */
export class FakeBank implements BankQueries {
  readonly boletos = new BoletoIdMap<Record<string, unknown>>();
  readonly payments = new Map<string, Record<string, unknown>>();
  readonly errors = new BoletoIdMap<BankApiError>();
  queries = 0;
  queriedBeneficiaries: string[] = [];
  /** As the processor is given it: this bank under its family's name. */
  readonly clients: Readonly<Record<string, unknown>> = { cooperative: this };

  constructor(
    private readonly clock: FakeClock,
    private readonly queryMs = 100,
  ) {}

  settle(
    nossoNumero: string,
    valor = '150.25',
    data: unknown = [2025, 6, 3, 14, 5, 9, 0],
    codigoBeneficiario = '54321',
  ): void {
    this.boletos.set(nossoNumero, {
      codigoBeneficiario,
      nossoNumero: nine(nossoNumero),
      valor: '150.25',
      situacao: 'LIQUIDADO',
      dadosLiquidacao: { data, valor },
    });
  }

  open(nossoNumero: string): void {
    this.boletos.set(nossoNumero, {
      codigoBeneficiario: '54321',
      nossoNumero: nine(nossoNumero),
      valor: '150.25',
      situacao: 'EM CARTEIRA',
      dadosLiquidacao: null,
    });
  }

  async queryBoleto(codigoBeneficiario: string, nossoNumero: string): Promise<Record<string, unknown>> {
    this.queries++;
    this.queriedBeneficiaries.push(codigoBeneficiario);
    this.clock.advance(this.queryMs);
    const error = this.errors.get(nossoNumero);
    if (error) throw error;
    const answer = this.boletos.get(nossoNumero);
    if (!answer)
      throw new BankApiError(`boleto query (nossoNumero ${nossoNumero})`, 404, 'Boleto não encontrado.', false);
    return structuredClone(answer);
  }

  async queryPayment(_type: PaymentType, idTransacao: string): Promise<Record<string, unknown>> {
    this.queries++;
    this.clock.advance(this.queryMs);
    const error = this.errors.get(idTransacao);
    if (error) throw error;
    const answer = this.payments.get(idTransacao);
    if (!answer)
      throw new BankApiError(`pix payment query (idTransacao ${idTransacao})`, 404, 'Pagamento não encontrado.', false);
    return structuredClone(answer);
  }
}

export class FakeClock {
  constructor(public time = Date.UTC(2025, 5, 3, 18)) {}

  now = (): number => this.time;

  advance(ms: number): void {
    this.time += ms;
  }
}

/** Look markers in memory, with the same condition as the table's (lambda/store/look-markers.ts). */
export class MemoryLookMarkers implements LookMarkers {
  readonly markers = new Map<string, { owner: string; until: number }>();

  async claim(subjectId: string, owner: string, until: number, now: number): Promise<boolean> {
    const held = this.markers.get(subjectId);
    if (held && held.owner !== owner && held.until >= now) return false;
    this.markers.set(subjectId, { owner, until });
    return true;
  }

  async release(subjectId: string, owner: string): Promise<void> {
    if (this.markers.get(subjectId)?.owner === owner) this.markers.delete(subjectId);
  }
}

/** Everything the core needs, in memory, and what it did. */
export function fakeDeps(overrides: Partial<ProcessorDeps> = {}) {
  const clock = new FakeClock();
  const bank = new FakeBank(clock);
  const store = new MemorySubjectStore();
  const markers = new MemoryLookMarkers();
  const published: Array<{ detailType: string; detail: Record<string, any> }> = [];
  const quarantined: Array<{ messageId: string; reason: string }> = [];
  const requeued: string[] = [];
  /** The delay (seconds) each requeued message was sent with. */
  const requeueDelays: number[] = [];
  /** The queue each quarantined and each requeued message was sent to (notifications', looks'). */
  const quarantinedTo: ProcessorQueue[] = [];
  const requeuedTo: ProcessorQueue[] = [];
  const logs: Array<{ level: string; message: string; extra: Record<string, unknown> }> = [];
  const counts: Record<string, number> = {};
  /** The values recorded of value metrics (LookRequestAge), by name. */
  const values: Record<string, number[]> = {};
  const log =
    (level: string) =>
    (message: string, ...extra: Record<string, unknown>[]) =>
      logs.push({ level, message, extra: Object.assign({}, ...extra) });
  const deps: ProcessorDeps = {
    settings: SETTINGS,
    account: ACCOUNT,
    bank,
    store,
    markers,
    publish: async (entries: readonly PublishEntry[]) => {
      for (const entry of entries) {
        const detail = JSON.parse(entry.detail) as Record<string, unknown>;
        // Every event the core builds holds to its detail type's published JSON Schema.
        const problems = detailProblems(entry.detailType, detail);
        if (problems.length) throw new Error(`the event breaks its JSON Schema: ${problems.join('; ')}`);
        published.push({ detailType: entry.detailType, detail });
      }
    },
    quarantine: async (record, reason, queue) => {
      quarantined.push({ messageId: record.messageId, reason });
      quarantinedTo.push(queue);
    },
    requeue: async (body, delaySeconds, queue) => {
      requeued.push(body);
      requeueDelays.push(delaySeconds);
      requeuedTo.push(queue);
    },
    logger: { info: log('INFO'), warn: log('WARN'), error: log('ERROR') },
    count: (metric, _dimensions, _details, value, unit) => {
      if (unit === MetricUnit.MILLISECONDS) (values[metric] ??= []).push(value ?? 0);
      else counts[metric] = (counts[metric] ?? 0) + (value ?? 1);
    },
    now: clock.now,
    ...overrides,
  };
  return {
    deps,
    clock,
    bank,
    store,
    markers,
    published,
    quarantined,
    quarantinedTo,
    requeued,
    requeueDelays,
    requeuedTo,
    logs,
    counts,
    values,
  };
}

/** A Lambda context with `ms` left, on the fake clock. */
export function contextWith(clock: FakeClock, ms = 30_000) {
  const end = clock.now() + ms;
  return { getRemainingTimeInMillis: () => end - clock.now() };
}

/** DynamoDbSubjectStore's semantics in memory (the bundle tests hold the real one to them). */
export class MemorySubjectStore implements SubjectStore {
  readonly records = new Map<string, SubjectRecord>();
  /** Subjects read one by one (GetItem), and the subject lists read together (BatchGetItem), in order. */
  readonly reads: string[] = [];
  readonly manyReads: string[][] = [];

  async read(subjectId: string): Promise<SubjectRecord> {
    this.reads.push(subjectId);
    return this.records.get(subjectId) ?? EMPTY_RECORD;
  }

  async readMany(subjectIds: readonly string[]): Promise<Map<string, SubjectRecord>> {
    this.manyReads.push([...subjectIds]);
    return new Map(subjectIds.map((id) => [id, this.records.get(id) ?? EMPTY_RECORD]));
  }

  async write(subjectId: string, expectedVersion: number, next: SubjectRecordWrite): Promise<boolean> {
    if ((this.records.get(subjectId)?.version ?? 0) !== expectedVersion) return false;
    this.records.set(subjectId, { ...next, version: expectedVersion + 1 });
    return true;
  }

  async takeOutbox(subjectId: string, outbox: Outbox, leaseUntil: number): Promise<boolean> {
    const record = this.records.get(subjectId);
    if (record?.outbox?.id !== outbox.id || record.outbox.leaseUntil !== outbox.leaseUntil) return false;
    this.records.set(subjectId, { ...record, outbox: { ...record.outbox, leaseUntil } });
    return true;
  }

  async clearOutbox(subjectId: string, outboxId: string): Promise<boolean> {
    const record = this.records.get(subjectId);
    if (record?.outbox?.id !== outboxId) return false;
    const { outbox: _published, ...rest } = record;
    this.records.set(subjectId, { ...rest, version: record.version + 1 });
    return true;
  }
}
