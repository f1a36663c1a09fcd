import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fdLineWriter, metricCounter } from '../../../lambda/shared/metrics';
import { captureOutput, jsonLogLines } from '../../support/load-handler';

function counterFor() {
  return metricCounter({ namespace: 'Test', serviceName: 'svc', receiverName: 'Billing/Receiver' });
}

it("writes each count at once as its own EMF line, with its dimensions and details and nobody else's", async () => {
  const count = counterFor();
  const { output } = await captureOutput(async () => {
    // Interleaved as concurrent records of a batch count.
    await Promise.all([
      Promise.resolve().then(() => count('Published', { DetailType: 'Boleto Settled' }, { idempotencyKey: 'k1' })),
      Promise.resolve().then(() => count('Duplicates')),
      Promise.resolve().then(() => count('Published', { DetailType: 'Pix Paid' }, { idempotencyKey: 'k2' })),
    ]);
  });

  const lines = jsonLogLines(output);
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatchObject({
    service: 'svc',
    receiver: 'Billing/Receiver',
    DetailType: 'Boleto Settled',
    Published: 1,
    idempotencyKey: 'k1',
  });
  expect(lines[1]).toMatchObject({ service: 'svc', Duplicates: 1 });
  expect(lines[1]).not.toHaveProperty('DetailType');
  expect(lines[1]).not.toHaveProperty('idempotencyKey');
  expect(lines[2]).toMatchObject({ DetailType: 'Pix Paid', Published: 1, idempotencyKey: 'k2' });
  // Details are fields of the line, not dimensions: they do not multiply CloudWatch metrics.
  const aws = lines[0]._aws as {
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  expect(aws.CloudWatchMetrics[0]).toEqual({
    Namespace: 'Test',
    Dimensions: [['service', 'receiver', 'DetailType']],
    Metrics: [{ Name: 'Published', Unit: 'Count' }],
  });
});

it('writes raw JSON lines CloudWatch reads as metrics, and a detail never overrides a dimension or the count', () => {
  const lines: string[] = [];
  const count = metricCounter({
    namespace: 'Test',
    serviceName: 'svc',
    receiverName: 'Billing/Receiver',
    write: (line) => lines.push(line),
  });
  const before = Date.now();
  count(
    'Stored',
    { Route: 'boleto' },
    { message: 'Notification stored', service: 'other', receiver: 'another', Route: 'payments', Stored: '7' },
  );

  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]) as Record<string, unknown> & {
    _aws: { Timestamp: number; CloudWatchMetrics: unknown[] };
  };
  expect(line).toMatchObject({
    message: 'Notification stored',
    service: 'svc',
    receiver: 'Billing/Receiver',
    Route: 'boleto',
    Stored: 1,
  });
  expect(line._aws.Timestamp).toBeGreaterThanOrEqual(before);
  expect(line._aws.CloudWatchMetrics).toEqual([
    { Namespace: 'Test', Dimensions: [['service', 'receiver', 'Route']], Metrics: [{ Name: 'Stored', Unit: 'Count' }] },
  ]);
});

describe('the line writer (fd 1, as the Lambda runtime writes)', () => {
  it('writes whole lines in order to a file, however long', () => {
    const dir = mkdtempSync(join(tmpdir(), 'line-writer-'));
    const path = join(dir, 'out');
    const fd = openSync(path, 'w');
    try {
      const write = fdLineWriter(fd, () => {
        throw new Error('a file never blocks');
      });
      const lines = ['{"a":1}', 'x'.repeat(300_000), '{"b":"ção"}'];
      for (const line of lines) write(line);
      expect(readFileSync(path, 'utf8')).toBe(lines.map((l) => `${l}\n`).join(''));
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends a line fd 1 refuses, and every later one, to the stream, in order and once', () => {
    const streamed: string[] = [];
    const stream = {
      write: (chunk: Buffer) => streamed.push(chunk.toString('utf8')),
    } as unknown as NodeJS.WritableStream;
    const closed = openSync(join(tmpdir(), `line-writer-${process.pid}`), 'w');
    closeSync(closed); // writing to it throws (EBADF), as a full non-blocking pipe throws EAGAIN
    const write = fdLineWriter(closed, () => stream);
    write('one');
    write('two');
    expect(streamed).toEqual(['one\n', 'two\n']);
    rmSync(join(tmpdir(), `line-writer-${process.pid}`), { force: true });
  });
});
