/** The raw journal of a stored notification, as the processor writes it beside its looks: the copy a message is retried until it holds. */
import type { SQSRecord } from 'aws-lambda';
import { ProcessorMetric } from '../../contracts/processor';
import type { StoredNotification } from '../../contracts/receiver';
import { journalKey, journalSubjectKey } from '../../contracts/record';
import { errorMessage } from '../shared/runtime';
import type { ProcessorDeps } from './deps';

/**
 * The notification's raw copy in the journal: its key (kept by the parts of it sent again), and a
 * write that answers the error instead of throwing, so the looks go on and the message is retried
 * (never deleted) until the copy is stored. Nothing to write without a journal, or for a part.
 */
export function journalOf(
  record: SQSRecord,
  stored: StoredNotification,
  deps: ProcessorDeps,
): { key?: string; write(subjectIds: readonly string[]): Promise<Error | undefined> } {
  const { journal } = deps;
  const nothing = (): Promise<undefined> => Promise.resolve(undefined);
  if (!journal) return { write: nothing };
  if (stored.journalKey) return { key: stored.journalKey, write: nothing };
  const at = new Date((deps.now ?? Date.now)());
  const key = journalKey(stored, at);
  return {
    key,
    write: async (subjectIds) => {
      try {
        await journal.write(
          key,
          record.body,
          subjectIds.map((id) => journalSubjectKey(id, stored, at)),
        );
        return undefined;
      } catch (error) {
        deps.count(ProcessorMetric.JOURNAL_FAILURES);
        deps.logger.error(
          'The raw notification could not be written to the journal; the message will be retried until it is',
          {
            messageId: record.messageId,
            requestId: stored.requestId,
            key: `${journal.location}${key}`,
            reason: errorMessage(error),
          },
        );
        return new Error(`the raw journal could not store ${key}: ${errorMessage(error)}`, { cause: error });
      }
    },
  };
}
