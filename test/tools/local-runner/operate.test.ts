/**
 * The operator CLI over the local runner: the deployed bundles wired from the example stack, the
 * CLI finding the receiver from the stack's manifest output (the local CloudFormation), as an
 * operator would against AWS. A notification quarantined while the bank did not know its boleto
 * is redriven once the bank does and published once; a settlement the bank never notified is
 * found by `sweep` and published once; `status` and `trace` tell what happened; `audit` finds
 * nothing wrong in all of it, and names a change published twice and a notification lost.
 */
import { PutEventsCommand, EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BankEventDetailType as T } from '../../../contracts/events';
import { journalKey } from '../../../contracts/record';
import { encodeStoredNotification } from '../../../lambda/store/stored-notification';
import { CliExit } from '../../../contracts/operations';
import { TrailEntryKind } from '../../../contracts/record';
import type { LocalRunner } from '../../../tools/local-runner/runner';
import { useE2eRunner } from '../../support/e2e-runner';
import { waitFor } from '../../support/wait';

jest.setTimeout(180_000);

const current = useE2eRunner();
let runner: LocalRunner;
beforeEach(() => {
  runner = current();
});

const subjectOf = (nossoNumero: string) => `boleto:${runner.simulator.accounts[0].beneficiario}:${nossoNumero}`;
const eventsOf = (since: ReturnType<LocalRunner['checkpoint']>, nossoNumero: string) =>
  runner
    .verifiedEvents(since)
    .filter((e) => (e.detail as { subject: { id: string } }).subject.id === subjectOf(nossoNumero));

it('status finds the receiver from its stack and tells its alarms, queues and registrations', async () => {
  const { status, out, err } = await runner.operate(['status']);
  expect(err).toBe('');
  expect([CliExit.OK, CliExit.ATTENTION]).toContain(status);
  expect(out).toMatch(/^Receiver \S+ \(PRODUCTION\), beneficiário \d{5}/);
  expect(out).toMatch(/Alarms: \d+ of \d+ in ALARM/);
  expect(out).toMatch(/notifications dead-letter\s+\d+/);
  expect(out).toMatch(/payments\s+(in-sync|not watched yet)/);
});

it('a notification quarantined while the bank did not know its boleto is redriven once it does, and published once', async () => {
  const since = runner.checkpoint();
  // The next boleto the bank makes: notified before the bank knows it (404 on every verification).
  const probe = await runner.control.createBoleto({ valor: '10.00' });
  const next = String(Number(probe.nossoNumero) + 1).padStart(9, '0');
  const early = {
    ...((await runner.control.settleBoleto(probe.nossoNumero)).notification as Record<string, unknown>),
    nossoNumero: next,
    idEventoWebhook: `early-${next}`,
  };
  await runner.settle(30_000);
  expect((await runner.post('boleto', JSON.stringify(early))).status).toBe(200);
  const quarantined = async () =>
    ((await runner.subjectRecord(subjectOf(next))).trail ?? []).some((e) => e.kind === TrailEntryKind.QUARANTINED);
  await waitFor(quarantined, 'the quarantine', 60_000);

  const listed = await runner.operate(['dlq', 'list']);
  expect(listed.out).toMatch(
    new RegExp(
      `${subjectOf(next)}\\s+the bank's query refuses it after every verification attempt: boleto query \\(nossoNumero ${next}\\) failed with HTTP 404`,
    ),
  );

  // The bank knows it now: the boleto is made and settled as the early notification said (its own notification is lost).
  await runner.control.setFaults({ loseDeliveries: true });
  const boleto = await runner.control.createBoleto({ valor: '10.00' });
  expect(boleto.nossoNumero).toBe(next);
  await runner.control.settleBoleto(next, { canal: 'PIX' });
  await runner.control.clearFaults();

  const redriven = await runner.operate(['dlq', 'redrive', '--subject', next]);
  expect(redriven).toMatchObject({ status: CliExit.OK });
  expect(redriven.out).toContain('Sent 1 of 1 message(s) back to the notifications queue');
  await runner.settle(60_000);
  expect(eventsOf(since, next).map((e) => e.detailType)).toEqual([T.BOLETO_SETTLED]);

  const trace = await runner.operate(['trace', next]);
  expect(trace.status).toBe(CliExit.OK);
  expect(trace.out).toMatch(/quarantined\s+the bank's query refuses it/);
  expect(trace.out).toMatch(/published\s+Boleto Settled #1/);
  expect(trace.out).toMatch(/Raw notifications \(1\):/);
});

it('sweep runs the reconciliation now and prints what it found; the settlement the bank never notified is published once', async () => {
  const since = runner.checkpoint();
  await runner.control.setFaults({ loseDeliveries: true });
  const boleto = await runner.control.createBoleto({ valor: '31.00' });
  await runner.control.settleBoleto(boleto.nossoNumero);
  await runner.control.clearFaults();

  const swept = await runner.operate(['sweep']);
  expect(swept.status).toBe(CliExit.OK);
  expect(swept.out).toMatch(/^Sweep complete: \d+ listing call\(s\)/);
  expect(swept.out).toMatch(/listed changes sent to be verified\s+1 /);
  expect(swept.out).toMatch(/payments\s+in-sync/);
  await runner.settle(60_000);
  const published = eventsOf(since, boleto.nossoNumero);
  expect(published.map((e) => [e.detailType, (e.detail as { trigger: string }).trigger])).toEqual([
    [T.BOLETO_SETTLED, 'reconciliation'],
  ]);

  const again = await runner.operate(['sweep']);
  expect(again.out).toMatch(/listed changes sent to be verified\s+0 /);
  expect((await runner.operate(['status'])).out).toMatch(
    /Last sweep \d+ s ago: complete, \d+ listing call\(s\), 0 listed change\(s\) and 0 payment\(s\) sent to be verified\./,
  );
  const trace = await runner.operate(['trace', boleto.nossoNumero]);
  expect(trace.out).toMatch(/look\s+the bank showed LIQUIDADO/);
  expect(trace.out).toContain('Raw notifications: none');
});

it('audit finds nothing wrong in what came before, then names a planted duplicate and a lost notification, and says what to do', async () => {
  await runner.settle(60_000);
  const now = Date.now();
  const window = ['--from', new Date(now - 3 * 3_600_000).toISOString(), '--to', new Date(now).toISOString()];
  const clean = await runner.operate(['audit', ...window]);
  expect(clean.err).toBe('');
  expect(clean.out).toContain('Nothing lost, nothing published twice, nothing unverified.');
  expect(clean.out).toMatch(/published \(verified\)\s+[1-9]/);
  expect(clean.status).toBe(CliExit.OK);

  const aws = runner.operatorAws();
  const config = { region: aws.region, credentials: aws.credentials };
  // A change published twice: another Boleto Settled under a published subject and sequence (someone else's PutEvents).
  const [settled] = runner.verifiedEvents().filter((e) => e.detailType === String(T.BOLETO_SETTLED));
  const detail = structuredClone(settled.detail) as {
    idempotencyKey: string;
    subject: { id: string; sequence: number };
  };
  detail.idempotencyKey = `${detail.subject.id}#${detail.subject.sequence}:settled:planted`;
  const events = new EventBridgeClient({ ...config, endpoint: aws.endpoints!.EVENTBRIDGE });
  await events.send(
    new PutEventsCommand({
      Entries: [
        {
          Source: settled.source,
          DetailType: settled.detailType,
          Detail: JSON.stringify(detail),
          EventBusName: settled.eventBusName,
        },
      ],
    }),
  );
  events.destroy();
  // A notification lost: in the journal (the processor wrote it two hours ago), and nothing else knows it.
  const stored = {
    route: 'boleto' as const,
    receivedAt: new Date(now - 2 * 3_600_000).toISOString(),
    requestId: 'planted-lost',
  };
  const lost = {
    ...(settled.detail as { notification?: unknown }),
    nossoNumero: '000999999',
    idEventoWebhook: 'planted-lost-event',
    movimento: 'LIQUIDACAO_PIX',
    valorLiquidacao: '12.34',
    beneficiario: runner.simulator.accounts[0].beneficiario,
  };
  const s3 = new S3Client({ ...config, endpoint: aws.endpoints!.S3, forcePathStyle: true });
  await s3.send(
    new PutObjectCommand({
      Bucket: runner.journal!.bucket,
      Key: journalKey(stored),
      Body: encodeStoredNotification(stored, Buffer.from(JSON.stringify(lost))),
      IfNoneMatch: '*',
    }),
  );
  s3.destroy();

  const found = await runner.operate(['audit', ...window]);
  expect(found.status).toBe(CliExit.ATTENTION);
  expect(found.out).toContain(
    `✗ nothing twice: ${detail.subject.id}#${detail.subject.sequence} was published as 2 different changes`,
  );
  expect(found.out).toMatch(
    new RegExp(
      `✗ nothing unverified: event \\S+ \\(${detail.idempotencyKey.replace(/[#:]/g, '.')}\\) is not among what ${detail.subject.id}'s record published`,
    ),
  );
  expect(found.out).toContain(
    '✗ nothing lost: boleto:000999999:planted-lost-event was answered 200 (request planted-lost) but no verified event accounts for it and it is not in quarantine',
  );
  expect(found.out).toMatch(/What to do:\n {2}nothing twice: consumers dedupe on the idempotencyKey/);
  expect(found.out).toContain('nothing lost: run `cdk-bank-webhooks trace <subject>`');
});
