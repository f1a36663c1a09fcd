/** Reading the raw journal's keys (contracts/record.ts): a time window's notifications, a subject's. */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  JOURNAL_NOTIFICATIONS_PREFIX,
  JOURNAL_SUBJECTS_PREFIX,
  journalKeyOfSubjectKey,
  journalSubjectPrefix,
} from '../../contracts/record';
import type { AwsClients } from './aws';

export const DAY_MS = 86_400_000;

/**
 * Every key under `prefix`, page by page; `each` sees each page's keys and, with a `delimiter`,
 * its common prefixes, and may stop the listing (throw).
 */
async function listKeys(
  aws: AwsClients,
  bucket: string,
  prefix: string,
  each: (keys: string[], commonPrefixes: string[]) => void,
  delimiter?: string,
): Promise<void> {
  let token: string | undefined;
  do {
    const page = await aws.s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token }),
    );
    each(
      (page.Contents ?? []).map((object) => object.Key!),
      (page.CommonPrefixes ?? []).map((common) => common.Prefix!),
    );
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** The name a notification received at `at` starts with: `notifications/<day>/<HH-mm-ss.SSS>Z`. */
function keyStart(at: number): string {
  const iso = new Date(at).toISOString();
  return `${JOURNAL_NOTIFICATIONS_PREFIX}${iso.slice(0, 10)}/${iso.slice(11).replace(/:/g, '-')}`;
}

/**
 * The keys of the notifications received in [from, to], oldest first, read day by day (their
 * keys start with the UTC day and time). `onPage` sees the count so far (to stop a listing too large).
 */
export async function journalKeysBetween(
  aws: AwsClients,
  bucket: string,
  from: number,
  to: number,
  onPage: (count: number) => void = () => undefined,
): Promise<string[]> {
  const keys: string[] = [];
  const [first, last] = [keyStart(from), keyStart(to)];
  for (let day = Date.parse(new Date(from).toISOString().slice(0, 10)); day <= to; day += DAY_MS) {
    await listKeys(
      aws,
      bucket,
      `${JOURNAL_NOTIFICATIONS_PREFIX}${new Date(day).toISOString().slice(0, 10)}/`,
      (page) => {
        // `<time>-<requestId>.json`: the time part alone decides (a key at `to`'s very millisecond is in).
        keys.push(...page.filter((key) => key.slice(0, first.length) >= first && key.slice(0, last.length) <= last));
        onPage(keys.length);
      },
    );
  }
  return keys.sort();
}

/** The subject ids of the journal's index under `subjects/<start>` that `matches` accepts (one listing call per 1,000 subjects). */
export async function journalSubjectsMatching(
  aws: AwsClients,
  bucket: string,
  start: string,
  matches: (subjectId: string) => boolean,
): Promise<string[]> {
  const found: string[] = [];
  await listKeys(
    aws,
    bucket,
    `${JOURNAL_SUBJECTS_PREFIX}${start}`,
    (_keys, subjects) => {
      for (const subject of subjects) {
        const subjectId = subject.slice(JOURNAL_SUBJECTS_PREFIX.length, -1);
        if (matches(subjectId)) found.push(subjectId);
      }
    },
    '/',
  );
  return found.sort();
}

/** The raw notifications' keys of one subject (from its index entries), oldest first. */
export async function journalKeysOf(aws: AwsClients, bucket: string, subjectId: string): Promise<string[]> {
  const keys: string[] = [];
  await listKeys(aws, bucket, journalSubjectPrefix(subjectId), (page) => {
    for (const entry of page) {
      const key = journalKeyOfSubjectKey(entry);
      if (key) keys.push(key);
    }
  });
  return keys.sort();
}
