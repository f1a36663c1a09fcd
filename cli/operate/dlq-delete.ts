/**
 * `dlq delete`: a dead-letter message the operator decided not to redrive leaves the queue only
 * once what it was is recorded where nobody may erase it: a create-only object under the journal's
 * `deletions/` (the operators' own prefix; Object Lock and the bucket's deny on deletes keep it),
 * naming the message, its request id (whose raw copy the journal already holds), its subjects, its
 * quarantine reason, who deleted it and when. A message whose record cannot be written stays.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { CliExit } from '../../contracts/operations';
import { type DeadLetterDeletion, deletionKey, JOURNAL_DELETIONS_PREFIX } from '../../contracts/record';
import { formatTable } from '../table';
import type { AwsClients } from './aws';
import { type DeadLetter, errorText, failuresTable } from './dead-letters';

/** What a deletion did: each message recorded and deleted (with its record's key), or why not. */
export interface DeletionResult {
  readonly deleted: readonly { readonly letter: DeadLetter; readonly record: string }[];
  readonly failed: readonly { readonly letter: DeadLetter; readonly why: string }[];
}

/** Records each letter in `bucket`, then deletes it from `deadLetterUrl`; one whose record failed is left in the queue. */
export async function deleteLetters(
  aws: Pick<AwsClients, 's3' | 'sqs' | 'sts'>,
  bucket: string,
  deadLetterUrl: string,
  letters: readonly DeadLetter[],
  taken: (letter: DeadLetter) => void,
  now: () => Date = () => new Date(),
): Promise<DeletionResult> {
  // GetCallerIdentity needs no permission in AWS; where it cannot answer (a local stack), the record
  // says so, and CloudTrail's PutObject event still names the caller.
  const deletedBy = await aws.sts
    .send(new GetCallerIdentityCommand({}))
    .then((answer) => answer.Arn ?? 'unknown')
    .catch((error: unknown) => `unknown: GetCallerIdentity failed (${errorText(error)})`);
  const deleted: { letter: DeadLetter; record: string }[] = [];
  const failed: { letter: DeadLetter; why: string }[] = [];
  for (const letter of letters) {
    const at = now();
    const messageId = letter.message.MessageId ?? 'unknown';
    const record: DeadLetterDeletion = {
      kind: 'dead-letter-deletion',
      queue: letter.queue,
      messageId,
      ...(letter.requestId ? { requestId: letter.requestId } : { body: letter.message.Body ?? '' }),
      subjects: letter.subjects,
      ...(letter.reason ? { reason: letter.reason } : {}),
      deletedBy,
      deletedAt: at.toISOString(),
    };
    const key = deletionKey(at, messageId);
    try {
      await aws.s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: JSON.stringify(record),
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
      );
    } catch (error) {
      failed.push({ letter, why: `not recorded, so not deleted: ${errorText(error)}` });
      continue;
    }
    try {
      await aws.sqs.send(
        new DeleteMessageCommand({ QueueUrl: deadLetterUrl, ReceiptHandle: letter.message.ReceiptHandle! }),
      );
    } catch (error) {
      failed.push({ letter, why: `recorded (${key}), but not deleted: ${errorText(error)}` });
      continue;
    }
    taken(letter);
    deleted.push({ letter, record: key });
  }
  return { deleted, failed };
}

/** `dlq delete` once the letters are chosen: a dry run says what would go; else each is recorded, then deleted. */
export async function deleteCommand(
  io: { out(text: string): void; err(text: string): void },
  aws: Pick<AwsClients, 's3' | 'sqs' | 'sts'>,
  bucket: string,
  deadLetterUrl: string,
  chosen: readonly DeadLetter[],
  taken: (letter: DeadLetter) => void,
  context: {
    readonly held: string;
    readonly dryRun: boolean;
    readonly table: (letters: readonly DeadLetter[]) => string;
  },
): Promise<number> {
  if (!chosen.length) {
    io.out(`None of ${context.held} matches: nothing deleted.`);
    return CliExit.OK;
  }
  if (context.dryRun) {
    io.out(
      `Dry run: would record under s3://${bucket}/${JOURNAL_DELETIONS_PREFIX} and then delete ${chosen.length} of ${context.held}:`,
    );
    io.out(context.table(chosen));
    return CliExit.OK;
  }
  const result = await deleteLetters(aws, bucket, deadLetterUrl, chosen, taken);
  io.out(
    `Deleted ${result.deleted.length} of ${chosen.length} message(s), each recorded first under s3://${bucket}/${JOURNAL_DELETIONS_PREFIX}:`,
  );
  if (result.deleted.length)
    io.out(
      formatTable(
        ['message id', 'request id', 'record'],
        result.deleted.map(({ letter, record }) => [letter.message.MessageId ?? '?', letter.requestId ?? '-', record]),
      ),
    );
  if (!result.failed.length) return CliExit.OK;
  io.err(`${result.failed.length} of ${chosen.length} message(s) were not deleted (exit ${CliExit.FAILED}):`);
  io.err(failuresTable(result.failed));
  return CliExit.FAILED;
}
