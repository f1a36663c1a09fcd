/**
 * `reverify` reaches as far back as the records of the window's subjects remember: a receiver's
 * Pix records (`pix.recordLifetime`, 101 days) further than its boletos' (`idempotencyTtl`).
 */
import { CliExit, type OperatorManifest } from '../../contracts/operations';
import { checkRecordsLifetime } from '../../cli/operate/reverify';
import { OperatorError } from '../../cli/operate/aws';

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 28, 12);
const manifest = {
  receiverName: 'Webhooks',
  recordsLifetimeSeconds: 30 * 86_400,
  recordsLifetimeSecondsByKind: { pix: 101 * 86_400, 'pix-refund': 101 * 86_400 },
} as unknown as OperatorManifest;
const refusal = (check: () => void): string => {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(OperatorError);
    expect((error as OperatorError).exit).toBe(CliExit.USAGE);
    return (error as Error).message;
  }
  return '';
};

it('lets a window of Pix 60 days back through, and refuses the same window for boletos, naming the kinds and the lifetime that binds', () => {
  const from = now - 60 * DAY;
  expect(refusal(() => checkRecordsLifetime(manifest, from, now, false))).toBe('');
  expect(refusal(() => checkRecordsLifetime(manifest, from, now, false, ['pix', 'pix-refund']))).toBe('');
  expect(refusal(() => checkRecordsLifetime(manifest, from, now, false, ['pix', 'boleto']))).toMatch(
    /the window's notifications name pix, boleto subjects\) \(its 30-day idempotencyTtl less a day: from 2026-10-30T12:00:00\.000Z\)/,
  );
  expect(refusal(() => checkRecordsLifetime(manifest, from, now, true, ['boleto']))).toBe('');
});

it("refuses a window past even the Pix records' lifetime, before reading the journal", () => {
  expect(refusal(() => checkRecordsLifetime(manifest, now - 120 * DAY, now, false))).toMatch(
    /its pix records' 101-day lifetime less a day: from 2026-08-20T12:00:00\.000Z/,
  );
  expect(refusal(() => checkRecordsLifetime(manifest, now - 120 * DAY, now, false, []))).toBe('');
});

it('holds a manifest without lifetimes by kind (no Pix, or an earlier release) to idempotencyTtl', () => {
  const { recordsLifetimeSecondsByKind: _none, ...plain } = manifest;
  expect(refusal(() => checkRecordsLifetime(plain as OperatorManifest, now - 60 * DAY, now, false))).toMatch(
    /its 30-day idempotencyTtl less a day/,
  );
  expect(refusal(() => checkRecordsLifetime(plain as OperatorManifest, now - 60 * DAY, now, false, ['pix']))).toMatch(
    /its 30-day idempotencyTtl less a day/,
  );
});
