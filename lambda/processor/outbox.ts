/**
 * Publishing a subject's outbox: the events written with the state they report, published after
 * that write and then cleared; an outbox another invocation left (it crashed, or failed to
 * publish) is taken over once its lease runs out and published with the same idempotency keys.
 */
import { BankEventDetailType, EventTrigger, type VerifiedState } from '../../contracts/events';
import { ProcessorMetric } from '../../contracts/processor';
import { sleep } from '../shared/retry';
import type { Outbox } from '../store/subject-store';
import { type Look, PeerInProgress } from './subject';

/**
 * An outbox found on a subject: another invocation is publishing it (wait for it, up to
 * PEER_WAIT_MS and never past the deadline), or one that crashed or failed left it (take it
 * over and publish it: the same events, with the same idempotency keys).
 */
export async function settleOutbox(subjectId: string, outbox: Outbox, look: Look): Promise<void> {
  const { deps } = look;
  const now = deps.now ?? Date.now;
  if (outbox.leaseUntil > now()) {
    const giveUpAt = Math.min(look.deadline, now() + PEER_WAIT_MS, outbox.leaseUntil);
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      if (now() + pause > giveUpAt) {
        if (now() < outbox.leaseUntil) throw new PeerInProgress(subjectId);
        break;
      }
      await sleep(pause);
      const current = await deps.store.read(subjectId);
      if (current.outbox?.id !== outbox.id || current.outbox.leaseUntil !== outbox.leaseUntil) return;
    }
  }
  if (await deps.store.takeOutbox(subjectId, outbox, look.deadline)) {
    deps.logger.warn('Publishing events another invocation wrote but did not finish publishing', {
      subject: subjectId,
      events: outbox.entries.length,
    });
    await publishOutbox(subjectId, { ...outbox, leaseUntil: look.deadline }, look);
  }
}

/** How long a record waits, inside the invocation, for another invocation publishing the same subject. */
export const PEER_WAIT_MS = 5_000;

export async function publishOutbox(subjectId: string, outbox: Outbox, look: Look): Promise<void> {
  const { deps } = look;
  try {
    await deps.publish(outbox.entries);
  } catch (error) {
    deps.count(ProcessorMetric.PUBLISH_FAILURES);
    // Give the lease up so a retry need not wait for it.
    await deps.store.takeOutbox(subjectId, outbox, 0).catch(() => false);
    throw error;
  }
  for (const entry of outbox.entries) {
    const detail = JSON.parse(entry.detail) as { idempotencyKey: string; state: VerifiedState; trigger: EventTrigger };
    if (entry.detailType === BankEventDetailType.NOTIFICATION_NOT_CONFIRMED) {
      deps.count(ProcessorMetric.NOT_CONFIRMED);
      deps.logger.warn('The bank never showed what a notification claimed: published as Notification Not Confirmed', {
        idempotencyKey: detail.idempotencyKey,
      });
    } else {
      // A published change's count is its log record: one line per verified event (see metricCounter).
      deps.count(
        ProcessorMetric.PUBLISHED,
        { DetailType: entry.detailType },
        {
          message: 'Verified event published',
          idempotencyKey: detail.idempotencyKey,
          status: detail.state.status,
          trigger: detail.trigger,
        },
      );
      // A change a look found before any notification told of it: recovered if none comes within the grace period (look.ts).
      if (detail.trigger === EventTrigger.RECONCILIATION) {
        deps.logger.info('Published from a reconciliation look, before any notification told of it', {
          idempotencyKey: detail.idempotencyKey,
          reason: look.request?.reason,
        });
      }
    }
  }
  await deps.store.clearOutbox(subjectId, outbox.id);
}
