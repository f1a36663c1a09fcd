/**
 * The raw journal: every authenticated notification kept as the receiver stored it (the envelope,
 * body bytes and metadata), one object per notification under its UTC day, and an empty object
 * per subject it names, so a day's notifications and a subject's list by prefix
 * (contracts/record.ts). Written by the processor, never on the receiver's path.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { isErrorNamed } from '../shared/runtime';

export interface NotificationJournal {
  /** Where the journal is (`s3://bucket/`), for what the processor logs and records. */
  readonly location: string;
  /** Stores the raw copy at `key` and the index entries at `subjectKeys`; resolves once every object is stored. */
  write(key: string, envelope: string, subjectKeys: readonly string[]): Promise<void>;
}

/** The journal in an S3 bucket (its default encryption, versioning and Object Lock apply to every object). */
export class S3NotificationJournal implements NotificationJournal {
  readonly location: string;

  constructor(
    private readonly s3: S3Client,
    private readonly bucketName: string,
  ) {
    this.location = `s3://${bucketName}/`;
  }

  async write(key: string, envelope: string, subjectKeys: readonly string[]): Promise<void> {
    await Promise.all([
      this.put(key, envelope, 'application/json'),
      ...subjectKeys.map((subjectKey) => this.put(subjectKey, '', 'application/x-empty')),
    ]);
  }

  /**
   * Writes an object unless one is there already (`If-None-Match: *`): a message received again
   * (a retry, a redrive) neither adds a version nor replaces what the bank sent first.
   */
  private async put(key: string, body: string, contentType: string): Promise<void> {
    try {
      const bytes = Buffer.from(body, 'utf8');
      await this.s3.send(
        new PutObjectCommand({
          Bucket: this.bucketName,
          Key: key,
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: contentType,
          IfNoneMatch: '*',
        }),
      );
    } catch (error) {
      if (
        isErrorNamed(error, 'PreconditionFailed') ||
        (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412
      )
        return;
      throw error;
    }
  }
}
