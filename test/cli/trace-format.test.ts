/**
 * What `trace` prints (issue 53): the trail in time order, a notification's id only where it says
 * more than its status, a boleto's amount once, and no story of a sweep for a subject never seen.
 */
import { EventTrigger, StatusClass } from '../../contracts/events';
import { TrailEntryKind, type TrailEntry } from '../../contracts/record';
import { formatTrace } from '../../cli/operate/trace';
import { EMPTY_RECORD, type SubjectRecord } from '../../lambda/store/subject-store';

const record = (trail: TrailEntry[], state?: SubjectRecord['state']): SubjectRecord => ({
  ...EMPTY_RECORD,
  version: 3,
  sequence: 2,
  trail,
  ...(state ? { state } : {}),
});

it('lists the trail in time order, entries of one instant in the order written', () => {
  const out = formatTrace({
    subjectId: 'payment:pix:abc',
    journalBucket: 'journal',
    raw: ['notifications/a'],
    record: record([
      {
        kind: TrailEntryKind.NOTIFICATION,
        at: '2026-11-25T14:00:00.002Z',
        requestId: 'r2',
        id: 'EFETIVADO',
        claim: 'EFETIVADO',
        matched: true,
      },
      {
        kind: TrailEntryKind.NOTIFICATION,
        at: '2026-11-25T14:00:00.001Z',
        requestId: 'r1',
        id: 'RECEBIDO',
        claim: 'RECEBIDO',
        matched: true,
      },
      { kind: TrailEntryKind.LOOK, at: '2026-11-25T14:00:00.002Z', trigger: EventTrigger.WEBHOOK, status: 'EFETIVADO' },
      {
        kind: TrailEntryKind.PUBLISHED,
        at: '2026-11-25T14:00:00.002Z',
        detailType: 'Payment Status Verified',
        sequence: 2,
        idempotencyKey: 'k#2',
      },
    ]),
  });
  const rows = out.split('\n').filter((line) => line.startsWith('2026-11-25'));
  expect(
    rows.map((row) =>
      row
        .split(/\s{2,}/)
        .slice(1, 3)
        .join(' '),
    ),
  ).toEqual([
    'notification RECEBIDO matched the bank (request r1)',
    'notification EFETIVADO matched the bank (request r2)',
    'look the bank showed EFETIVADO (webhook)',
    'published Payment Status Verified #2 (k#2)',
  ]);
});

it("shows a refund's id without the status it carries, and a boleto's amount once", () => {
  const refund = formatTrace({
    subjectId: 'pix-refund:E1:r1',
    raw: [],
    journalBucket: 'journal',
    record: record([
      {
        kind: TrailEntryKind.NOTIFICATION,
        at: '2026-11-25T14:00:00Z',
        requestId: 'r',
        id: 'r1:DEVOLVIDO',
        claim: 'DEVOLVIDO',
        matched: true,
      },
    ]),
  });
  expect(refund).toContain('DEVOLVIDO matched the bank (id r1, request r)');
  const boleto = formatTrace({
    subjectId: 'boleto:54321:000001004',
    raw: ['k'],
    journalBucket: 'journal',
    record: record([], {
      status: 'LIQUIDADO',
      statusClass: StatusClass.SETTLED,
      amount: { cents: 12907, decimal: '129.07' },
      settlement: { id: '2026-11-25:12907', date: '2026-11-25', amount: { cents: 12907, decimal: '129.07' } },
    }),
  });
  expect(boleto).toMatch(/verified state {3}LIQUIDADO \(settled\), settled 2026-11-25 129\.07$/m);
  expect(boleto.match(/129\.07/g)).toHaveLength(1);
});

it('says nothing of a sweep for a subject never seen, and says it for one known only from a look', () => {
  const unknown = formatTrace({ subjectId: 'boleto:54321:999999999', raw: [], journalBucket: 'journal' });
  expect(unknown).toContain('No record');
  expect(unknown).toContain('Raw notifications: none in s3://journal/.');
  expect(unknown).not.toContain('a sweep');
  const swept = formatTrace({
    subjectId: 'boleto:54321:000000001',
    raw: [],
    journalBucket: 'journal',
    record: record([]),
  });
  expect(swept).toContain('(none received: a sweep, a Track Payment or a reverify found it).');
});
