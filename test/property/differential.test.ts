/**
 * The differential suite: the property harness's in-memory models held to the real local parts,
 * so they cannot drift into toys. Where a model and its real counterpart answer the same calls
 * differently, a test fails naming the call.
 *
 * - DynamoDB: every call the real handlers made to the model in a fixed set of harness runs (and
 *   every item the harness expired, as a delete) is made again, in order, against dynalite with
 *   the construct's own table; each answer must agree (the item read, the condition that failed,
 *   the items a batch or a query found).
 * - SQS: one script of sends, receives, deletes with a stale and a fresh receipt, releases and a
 *   redrive past maxReceiveCount, against the queue model and fauxqs, with a 2 s visibility timeout (room for a busy machine between the two sides' calls).
 * - S3: create-only writes (`If-None-Match: *`), against the bucket model and moto.
 * - The bank: the same boletos and payments at the simulator's engine in process (the harness's
 *   transport) and at the simulator over HTTPS, queried through the real bank client: the same
 *   answers, refusals and not-founds.
 */
import fc from 'fast-check';
import {
  BatchGetItemCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { PutObjectCommand, CreateBucketCommand } from '@aws-sdk/client-s3';
import { IdempotencyTable } from '../../contracts/processor';
import { type Dynalite, startDynalite } from '../../tools/local-aws/dynalite';
import { createQueueWithDlq, type Fauxqs, startFauxqs } from '../../tools/local-aws/fauxqs';
import { resolveLocalhostSubdomains } from '../../tools/local-aws/local-env';
import { startMoto } from '../../tools/local-aws/moto';
import { synthReceiver } from '../support/cdk';
import { DynamoDbModel } from './models/dynamodb-model';
import { QueueModel, S3Model } from './models/aws-models';
import { runScenario, scenarios } from './scenario';
import { BankSide } from './bank-side';
import { PaymentKind } from '../../contracts/events';
import { CooperativeClient } from '../../lambda/bank/cooperative/client';
import { BankSimulator, SAMPLE_ACCOUNT } from '../../simulator/simulator';
import { simulatorConnection, simulatorCredentials } from '../support/simulator-connection';

jest.setTimeout(120_000);

// The models' own answers, which the recording spies call through.
const originalHandle = DynamoDbModel.prototype.handle;
const originalExpire = DynamoDbModel.prototype.expire;

/** A call's outcome, as compared: what it answered (normalized), or the name of the error. */
type Outcome = { readonly ok: unknown } | { readonly error: string };

async function outcomeOf(call: () => unknown): Promise<Outcome> {
  try {
    return { ok: await call() };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/** JSON with every object's keys in order: two answers that differ only in attribute order are equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** What of a DynamoDB answer the handlers read: the item, a batch's or a query's items (by key), the new attributes. */
function dynamoView(command: unknown, outcome: Outcome): unknown {
  if ('error' in outcome) return outcome;
  const answer = outcome.ok as {
    Item?: unknown;
    Items?: Array<Record<string, { S?: string }>>;
    Responses?: Record<string, Array<Record<string, { S?: string }>>>;
    Attributes?: unknown;
  };
  const byKey = (items: Array<Record<string, { S?: string }>> = []) =>
    [...items].sort((a, b) => String(a[IdempotencyTable.KEY]?.S).localeCompare(String(b[IdempotencyTable.KEY]?.S)));
  if (command instanceof GetItemCommand) return { Item: answer.Item ?? null };
  if (command instanceof BatchGetItemCommand) return { Items: byKey(Object.values(answer.Responses ?? {}).flat()) };
  // A query on an index answers in its sort key's order.
  if (command instanceof QueryCommand) return { Items: command.input.IndexName ? answer.Items : byKey(answer.Items) };
  if (command instanceof UpdateItemCommand && command.input.ReturnValues === 'ALL_NEW')
    return { Attributes: answer.Attributes };
  return { ok: true };
}

type Recorded =
  { readonly command: unknown; readonly outcome: Outcome } | { readonly expired: string[] } | { readonly newRun: true };

describe('DynamoDB: the model against dynalite, with the calls the handlers made', () => {
  let dynalite: Dynalite;
  const recorded: Recorded[] = [];
  let tableName = '';
  /** The construct's own table, as its template declares it. */
  let table: { Properties?: Record<string, unknown> };

  beforeAll(async () => {
    // Every call the handlers make to the model, and every item the harness expires, in order.
    const handle = jest.spyOn(DynamoDbModel.prototype, 'handle').mockImplementation(function (
      this: DynamoDbModel,
      command: unknown,
    ) {
      tableName = this.tableName;
      try {
        const ok = originalHandle.call(this, command);
        recorded.push({ command, outcome: { ok: structuredClone(ok) } });
        return ok;
      } catch (error) {
        recorded.push({ command, outcome: { error: (error as Error).name } });
        throw error;
      }
    });
    const expire = jest.spyOn(DynamoDbModel.prototype, 'expire').mockImplementation(function (this: DynamoDbModel) {
      const gone = originalExpire.call(this);
      if (gone.length) recorded.push({ expired: gone });
      return gone;
    });
    // A fixed set of runs: the CI seed's first scenarios, faults and all.
    for (const scenario of fc.sample(scenarios, { seed: 20261128, numRuns: 10 })) {
      recorded.push({ newRun: true });
      await fc.assert(
        fc.asyncProperty(fc.scheduler(), async (scheduler) => {
          await runScenario(scenario, scheduler);
        }),
        { numRuns: 1, seed: 1 },
      );
    }
    handle.mockRestore();
    expire.mockRestore();
    dynalite = await startDynalite();
    const { template } = synthReceiver();
    [table] = Object.values(template.findResources('AWS::DynamoDB::Table'));
  });
  afterAll(async () => dynalite?.stop());

  /** Waits until the table's status is `status` (undefined: the table is gone). */
  async function tableStatus(status: string | undefined): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const now = await dynalite.client.send(new DescribeTableCommand({ TableName: tableName })).then(
        (d) => d.Table?.TableStatus,
        () => undefined,
      );
      if (now === status) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`dynalite's table ${tableName} did not become ${status ?? 'gone'}`);
  }

  it('answers every call as dynalite does', async () => {
    const calls = recorded.filter((r) => 'command' in r);
    expect(calls.length).toBeGreaterThan(100);
    const kinds = new Set(calls.map((r) => (r as { command: object }).command.constructor.name));
    expect([...kinds].sort()).toEqual([
      'BatchGetItemCommand',
      'GetItemCommand',
      'PutItemCommand',
      'QueryCommand',
      'UpdateItemCommand',
    ]);
    expect(calls.some((r) => 'error' in (r as { outcome: Outcome }).outcome)).toBe(true);
    const disagreements: string[] = [];
    for (const [i, entry] of recorded.entries()) {
      if ('newRun' in entry) {
        // Each run's world starts with an empty table: dynalite deletes and creates on a timer, so
        // each is waited for (on a busy machine a create could otherwise be undone by the delete).
        await dynalite.client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
        await tableStatus(undefined);
        await dynalite.createTableLike(tableName, table.Properties ?? {});
        await tableStatus('ACTIVE');
        continue;
      }
      if ('expired' in entry) {
        for (const id of entry.expired)
          await dynalite.client.send(
            new DeleteItemCommand({ TableName: tableName, Key: { [IdempotencyTable.KEY]: { S: id } } }),
          );
        continue;
      }
      const real = await outcomeOf(() => dynalite.client.send(entry.command as GetItemCommand));
      const [model, local] = [dynamoView(entry.command, entry.outcome), dynamoView(entry.command, real)];
      if (canonical(model) !== canonical(local)) {
        disagreements.push(
          `call ${i} (${(entry.command as object).constructor.name} ${JSON.stringify((entry.command as GetItemCommand).input).slice(0, 200)}): the model answered ${JSON.stringify(model).slice(0, 300)}, dynalite ${JSON.stringify(local).slice(0, 300)}`,
        );
      }
    }
    expect(disagreements).toEqual([]);
  });
});

describe('SQS: the queue model against fauxqs', () => {
  let fauxqs: Fauxqs;
  let sqs: SQSClient;
  let restoreDns: () => void;
  beforeAll(async () => {
    restoreDns = resolveLocalhostSubdomains();
    fauxqs = await startFauxqs();
    sqs = fauxqs.client();
  });
  afterAll(async () => {
    sqs?.destroy();
    await fauxqs?.stop();
    restoreDns?.();
  });

  it('hands out, hides, deletes and redrives as fauxqs does', async () => {
    const maxReceiveCount = 2;
    const { queueUrl, dlqUrl } = await createQueueWithDlq(sqs, 'differential', maxReceiveCount, 2, 'differential-dlq');
    let ids = 0;
    const model = new QueueModel('q', 2_000, maxReceiveCount, Date.now, () => `m${++ids}`);
    model.deadLetter = new QueueModel('dlq', 2_000, 0, Date.now, () => `d${++ids}`);
    const receipts = { model: new Map<string, string>(), real: new Map<string, string>() };
    const trace = { model: [] as string[], real: [] as string[] };
    const send = async (body: string) => {
      model.send(body);
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    };
    const receive = async (step: string) => {
      const fromModel = model.receive(10);
      for (const m of fromModel) receipts.model.set(m.body, m.receipt!);
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      for (const m of Messages) receipts.real.set(m.Body!, m.ReceiptHandle!);
      trace.model.push(
        `${step}: ${fromModel
          .map((m) => `${m.body}×${m.receiveCount}`)
          .sort()
          .join(' ')}`,
      );
      trace.real.push(
        `${step}: ${Messages.map((m) => `${m.Body}×${m.Attributes?.ApproximateReceiveCount}`)
          .sort()
          .join(' ')}`,
      );
    };
    const wait = () => new Promise((resolve) => setTimeout(resolve, 2_300));

    await send('a');
    await send('b');
    await send('c');
    await receive('first receive');
    await receive('hidden for the visibility timeout');
    const stale = { model: receipts.model.get('a')!, real: receipts.real.get('a')! };
    // b is deleted with its receipt; c is released at once (a failed record).
    model.delete(receipts.model.get('b')!);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receipts.real.get('b')! }));
    model.release(receipts.model.get('c')!);
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: receipts.real.get('c')!,
        VisibilityTimeout: 0,
      }),
    );
    await receive('c released');
    await wait();
    await receive('a back after its timeout');
    // A delete with a receipt from before the latest receive deletes nothing.
    model.delete(stale.model);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: stale.real })).catch(() => undefined);
    await wait();
    await receive('past maxReceiveCount: to the dead-letter queue');
    const { Messages: dead = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10 }),
    );
    trace.model.push(
      `dead letters: ${model.deadLetter.messages
        .map((m) => m.body)
        .sort()
        .join(' ')}`,
    );
    trace.real.push(
      `dead letters: ${dead
        .map((m) => m.Body)
        .sort()
        .join(' ')}`,
    );
    expect(trace.model).toEqual(trace.real);
  });
});

describe('S3: the bucket model against moto', () => {
  it('writes a key once under If-None-Match: *, and refuses it again with PreconditionFailed, as moto does', async () => {
    const moto = await startMoto();
    try {
      const s3 = moto.s3();
      await s3.send(new CreateBucketCommand({ Bucket: 'differential' }));
      const model = new S3Model('differential');
      const writes = [
        ['k1', 'one'],
        ['k2', 'two'],
        ['k1', 'again'],
        ['k2', 'two'],
      ] as const;
      const results = { model: [] as string[], real: [] as string[] };
      for (const [key, body] of writes) {
        const put = () => new PutObjectCommand({ Bucket: 'differential', Key: key, Body: body, IfNoneMatch: '*' });
        const [m, r] = [await outcomeOf(() => model.handle(put())), await outcomeOf(() => s3.send(put()))];
        results.model.push(`${key}: ${'error' in m ? m.error : 'written'}`);
        results.real.push(`${key}: ${'error' in r ? r.error : 'written'}`);
      }
      expect(results.model).toEqual(['k1: written', 'k2: written', 'k1: PreconditionFailed', 'k2: PreconditionFailed']);
      expect(results.real).toEqual(results.model);
    } finally {
      await moto.stop();
    }
  });
});

describe("the bank: the simulator in process (the harness's transport) against the simulator over HTTPS", () => {
  it("answers the processor's queries, its refusals and its not-founds alike, through the real bank client", async () => {
    const side = new BankSide(Date.now, () => undefined);
    const simulator = await BankSimulator.start({ credentials: side.credentials, accounts: [SAMPLE_ACCOUNT] });
    const arn = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:differential';
    const inProcess = new CooperativeClient({
      settings: side.connection(arn),
      credentials: () => Promise.resolve(side.secretValue()),
      transport: () => side.transport((_label, work) => work()),
    });
    const overHttps = new CooperativeClient({
      settings: simulatorConnection(simulator, arn),
      credentials: () => Promise.resolve(simulatorCredentials(simulator)),
    });
    try {
      // The same changes at both banks: boletos open, settled, settled and reversed; Pix payments received and settled.
      const [open, settled, reversed] = ['10.00', '20.00', '30.00'].map(
        (valor) => side.engine.bank.createBoleto({ valor }).nossoNumero,
      );
      for (const valor of ['10.00', '20.00', '30.00'])
        expect((await simulator.control.createBoleto({ valor })).nossoNumero).toBe(
          [open, settled, reversed][['10.00', '20.00', '30.00'].indexOf(valor)],
        );
      for (const nossoNumero of [settled, reversed]) {
        side.engine.bank.changeBoleto(nossoNumero, 'settle', { canal: 'PIX' });
        simulator.changeBoleto(nossoNumero, 'settle', { canal: 'PIX' });
      }
      side.engine.bank.changeBoleto(reversed, 'reverse');
      simulator.changeBoleto(reversed, 'reverse');
      for (const idTransacao of ['tx-a', 'tx-b']) {
        side.engine.bank.createPayment({ tipo: PaymentKind.PIX, valor: '45.60', idTransacao });
        await simulator.control.createPayment({ tipo: PaymentKind.PIX, valor: '45.60', idTransacao });
      }
      side.engine.bank.changePayment(PaymentKind.PIX, 'tx-b', 'settle');
      await simulator.control.settlePayment(PaymentKind.PIX, 'tx-b');

      const deadline = () => Date.now() + 10_000;
      const ask = async (client: CooperativeClient) =>
        Promise.all([
          ...[open, settled, reversed, '009999999'].map((nossoNumero) =>
            outcomeOf(() => client.queryBoleto(SAMPLE_ACCOUNT.beneficiario, nossoNumero, deadline())),
          ),
          ...['tx-a', 'tx-b', 'tx-unknown'].map((id) => outcomeOf(() => client.queryPayment('pix', id, deadline()))),
        ]);
      const [local, https] = [await ask(inProcess), await ask(overHttps)];
      // What differs by the moment each bank made it (dates, times, generated ids) is left out; every field is still there.
      const stable = (outcome: Outcome) =>
        canonical(outcome)
          .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})?/g, '<time>')
          .replace(/\[20\d\d(,\d+){2,6}\]/g, '<date>')
          .replace(/"endToEnd":"E\d+/g, '"endToEnd":"E<ispb and time>');
      expect(local.map(stable)).toEqual(https.map(stable));
      expect(local.filter((o) => 'error' in o)).toHaveLength(2);
    } finally {
      inProcess.close();
      overHttps.close();
      await simulator.stop();
    }
  });
});
