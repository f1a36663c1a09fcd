import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import {
  JOURNAL_DELETIONS_PREFIX,
  JOURNAL_NOTIFICATIONS_PREFIX,
  JOURNAL_SUBJECTS_PREFIX,
  JournalDefaults,
  JournalObjectLock,
} from '../../contracts/record';
import { isWholeNumberIn, type PropsValidation } from '../core/props-validation';
import { type ConfigurationGuard, GuardStatement, JOURNAL_CONFIGURATION_ACTIONS } from '../core/configuration-guard';

/**
 * The raw journal: every authenticated notification kept as the receiver stored it, beyond the
 * queue's 14 days (see cdk-bank-webhooks/docs/operations.md, "The raw journal", and cdk-bank-webhooks/docs/security.md).
 */
export interface NotificationJournalOptions {
  /**
   * Whether the processor keeps every notification in the journal. Without it, a raw
   * notification lives only as long as its queue message (14 days at most).
   * @default true
   */
  readonly enabled?: boolean;

  /**
   * How long each raw notification is kept (then expired by the bucket's lifecycle). 1 to 36500 days.
   * @default Duration.days(1827) - 5 years, the span usually asked of financial records in Brazil
   */
  readonly retention?: Duration;

  /**
   * S3 Object Lock for the objects, for `retention`: GOVERNANCE (only principals allowed to bypass
   * it may delete or shorten early) or COMPLIANCE (nobody may, not even the account's root, not
   * even to erase personal data a forged body carried; it cannot be undone). Object Lock cannot be
   * turned off once on. A journal that takes it by default is updated in place (its
   * `ObjectLockConfiguration`); one set here is made as it always was, with Object Lock enabled at
   * the bucket's creation, so choose it at the first deploy (cdk-bank-webhooks/docs/operations.md, "The raw journal").
   * @default - JournalObjectLock.GOVERNANCE for a PRODUCTION processor kept under RemovalPolicy.RETAIN; NONE otherwise
   */
  readonly objectLock?: JournalObjectLock;

  /**
   * KMS key for SSE-KMS (with an S3 bucket key, so each object costs no KMS request).
   * @default - SSE-S3 (keys S3 manages)
   */
  readonly encryptionKey?: kms.IKey;

  /**
   * Roles that may read the journal (operators running `cdk-bank-webhooks trace`, auditors): each
   * is granted read, and the bucket policy refuses reads to every other principal. The bodies
   * carry payers' CPF/CNPJ (cdk-bank-webhooks/docs/security.md).
   * @default - no grant and no refusal: the account's IAM policies decide who reads
   */
  readonly readers?: iam.IRole[];

  /**
   * After how long a raw notification large enough to gain from it (128 KB and more) moves to
   * Glacier Instant Retrieval. Smaller ones stay in S3 Standard: every colder class bills at
   * least 128 KB an object, so moving them would cost more.
   * @default Duration.days(90)
   */
  readonly transitionAfter?: Duration;

  /**
   * Where S3 writes the journal's server access logs.
   * @default - no access logs (AwsSolutions-S1 is left for you to decide)
   */
  readonly serverAccessLogsBucket?: s3.IBucket;
}

/** Checks NotificationJournalOptions under `prefix`. */
export function checkJournalOptions(
  v: PropsValidation,
  options: NotificationJournalOptions | undefined,
  prefix = 'journal.',
): void {
  if (!options) return;
  const retention = options.retention?.toDays({ integral: false });
  if (retention !== undefined)
    v.checkNumber(
      retention,
      `${prefix}retention`,
      isWholeNumberIn(1, 36500),
      'must be a whole number of days from 1 to 36500',
    );
  const transition = options.transitionAfter?.toDays({ integral: false });
  if (transition !== undefined) {
    v.checkNumber(
      transition,
      `${prefix}transitionAfter`,
      isWholeNumberIn(0, 36500),
      'must be a whole number of days from 0 to 36500',
    );
    if (retention !== undefined && !Token.isUnresolved(retention) && !Token.isUnresolved(transition)) {
      v.check(
        transition < retention,
        `${prefix}transitionAfter`,
        `must be shorter than retention (${transition} days is not shorter than ${retention}): an object expires before it would move`,
      );
    }
  }
  if (options.objectLock !== undefined) {
    v.check(
      Object.values(JournalObjectLock).includes(options.objectLock),
      `${prefix}objectLock`,
      `must be JournalObjectLock.NONE, GOVERNANCE or COMPLIANCE, got "${options.objectLock}"`,
    );
  }
}

/** How the processor's stack keeps its journal. */
export interface JournalSettings {
  /** What becomes of the journal when it leaves the stack. */
  readonly removalPolicy?: RemovalPolicy;
  /** Whether the stack is PRODUCTION (its journal is locked by default). */
  readonly production?: boolean;
  /** Who may change the journal's lifecycle, policy, versioning and Object Lock. */
  readonly guard?: ConfigurationGuard;
  /** The operators, who alone record under deletions/ what they delete from a dead-letter queue. */
  readonly operators?: readonly iam.IRole[];
}

/**
 * Makes the journal's bucket in `scope` as `id`: versioned, encrypted, TLS only, public access
 * blocked, expired after the retention, written by `writer` alone (the bucket policy refuses
 * every other principal's writes, and everyone's deletes).
 */
export function createNotificationJournal(
  scope: Construct,
  id: string,
  options: NotificationJournalOptions,
  writer: iam.IRole,
  settings: JournalSettings = {},
): s3.Bucket {
  const { removalPolicy = RemovalPolicy.RETAIN, production = false, guard, operators = [] } = settings;
  const retention = options.retention ?? Duration.days(JournalDefaults.retentionDays);
  const lock = journalObjectLock(options, removalPolicy, production);
  // A lock chosen in the props is made as it always was (ObjectLockEnabled at creation): its
  // deployed template stays as it is. A lock by default is the configuration alone, which S3
  // applies to an existing versioned bucket in place (ObjectLockEnabled would replace it).
  const lockedByDefault = lock !== JournalObjectLock.NONE && options.objectLock === undefined;
  // DESTROY empties the bucket first (CDK's auto-delete provider); Object Lock is refused with it at validation.
  const destroy = removalPolicy === RemovalPolicy.DESTROY && lock === JournalObjectLock.NONE;
  const bucket = new s3.Bucket(scope, id, {
    versioned: true,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    encryption: options.encryptionKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
    encryptionKey: options.encryptionKey,
    bucketKeyEnabled: options.encryptionKey ? true : undefined,
    serverAccessLogsBucket: options.serverAccessLogsBucket,
    serverAccessLogsPrefix: options.serverAccessLogsBucket ? 'notification-journal/' : undefined,
    removalPolicy: destroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    autoDeleteObjects: destroy,
    ...(lock === JournalObjectLock.NONE || lockedByDefault
      ? {}
      : {
          objectLockEnabled: true,
          objectLockDefaultRetention:
            lock === JournalObjectLock.COMPLIANCE
              ? s3.ObjectLockRetention.compliance(retention)
              : s3.ObjectLockRetention.governance(retention),
        }),
    lifecycleRules: [
      {
        id: 'Retention',
        expiration: retention,
        // A version replaced or deleted (nothing but S3 itself may) is kept as long as a current one would be.
        noncurrentVersionExpiration: retention,
        abortIncompleteMultipartUploadAfter: Duration.days(1),
        // S3 moves no object under 128 KB (its default minimum for transitions): those stay in Standard.
        transitions: [
          {
            storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL,
            transitionAfter: options.transitionAfter ?? Duration.days(JournalDefaults.transitionDays),
          },
        ],
      },
    ],
  });
  if (lockedByDefault) {
    (bucket.node.defaultChild as s3.CfnBucket).objectLockConfiguration = {
      objectLockEnabled: 'Enabled',
      rule: { defaultRetention: { mode: lock, days: retention.toDays() } },
    };
  }
  // Only the processor writes, and only under the journal's two prefixes.
  const objects = [JOURNAL_NOTIFICATIONS_PREFIX, JOURNAL_SUBJECTS_PREFIX].map((prefix) =>
    bucket.arnForObjects(`${prefix}*`),
  );
  writer.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: objects }));
  options.encryptionKey?.grant(writer, 'kms:GenerateDataKey', 'kms:Encrypt');
  // Everything but the operators' deletion records is the processor's to write, and theirs theirs alone.
  const deletions = bucket.arnForObjects(`${JOURNAL_DELETIONS_PREFIX}*`);
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'OnlyTheProcessorWrites',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      notResources: [deletions],
      conditions: { ArnNotEquals: { 'aws:PrincipalArn': writer.roleArn } },
    }),
  );
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'OnlyOperatorsRecordDeletions',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [deletions],
      // No operator named: nobody records (a bucket's ARN is never a principal's).
      conditions: {
        ArnNotEquals: { 'aws:PrincipalArn': operators.length ? operators.map((r) => r.roleArn) : [bucket.bucketArn] },
      },
    }),
  );
  // Allowed by the bucket's own policy, so an operator's role needs no grant of its own (nor its inline policy).
  if (operators.length)
    bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OperatorsRecordDeletions',
        principals: operators.map((role) => new iam.ArnPrincipal(role.roleArn)),
        actions: ['s3:PutObject'],
        resources: [deletions],
      }),
    );
  // Every write must be create-only (If-None-Match: *): not even the processor's role can overwrite a raw notification.
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'OnlyCreateOnlyWrites',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:PutObject'],
      resources: [bucket.arnForObjects('*')],
      conditions: { Null: { 's3:if-none-match': 'true' } },
    }),
  );
  // With DESTROY, the stack's own clean-up (CDK's auto-delete provider, run only when the bucket is removed) is the one exception.
  const cleanUp = destroy ? autoDeleteRoleArn(bucket) : undefined;
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'NobodyDeletesARawNotification',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
      resources: [bucket.arnForObjects('*')],
      ...(cleanUp ? { conditions: { ArnNotEquals: { 'aws:PrincipalArn': cleanUp } } } : {}),
    }),
  );
  // Its lifecycle, policy, versioning and Object Lock change with the stack's deployment alone (and
  // CDK's clean-up under DESTROY, which writes the policy that stops writes while it empties the bucket).
  if (guard) {
    bucket.addToResourcePolicy(
      guard.deny(GuardStatement.journal, JOURNAL_CONFIGURATION_ACTIONS, [bucket.bucketArn], () =>
        cleanUp ? [cleanUp] : [],
      ),
    );
  }
  const readers = options.readers ?? [];
  if (readers.length) {
    for (const reader of readers) bucket.grantRead(reader);
    bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyTheNamedReadersRead',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:GetObject', 's3:GetObjectVersion'],
        resources: [bucket.arnForObjects('*')],
        conditions: { ArnNotLike: { 'aws:PrincipalArn': readers.map((reader) => reader.roleArn) } },
      }),
    );
  }
  const logicalId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as s3.CfnBucket);
  for (const prefix of [JOURNAL_NOTIFICATIONS_PREFIX, JOURNAL_SUBJECTS_PREFIX]) {
    Validations.of(writer).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/${prefix}*]`,
      reason:
        "The processor writes one object per notification (and one per subject it names) under the journal's two prefixes: object keys are not known in advance, so the PutObject grant names each prefix with a wildcard.",
    });
  }
  return bucket;
}

/**
 * The journal's Object Lock: the one chosen, else GOVERNANCE for a PRODUCTION processor whose
 * journal is kept (RETAIN), else none (a journal a stack destroys must be emptied first).
 */
export function journalObjectLock(
  options: NotificationJournalOptions,
  removalPolicy: RemovalPolicy | undefined,
  production: boolean,
): JournalObjectLock {
  if (options.objectLock !== undefined) return options.objectLock;
  return production && removalPolicy !== RemovalPolicy.DESTROY ? JournalObjectLock.GOVERNANCE : JournalObjectLock.NONE;
}

/** The role of the stack's auto-delete provider, which `autoDeleteObjects` made for `bucket`. */
function autoDeleteRoleArn(bucket: s3.Bucket): string {
  const provider = Stack.of(bucket).node.tryFindChild('Custom::S3AutoDeleteObjectsCustomResourceProvider') as
    { roleArn?: string } | undefined;
  if (!provider?.roleArn)
    throw new Error(
      "The journal's clean-up provider was not found (aws-cdk-lib's autoDeleteObjects changed): keep removalPolicy RETAIN, and report this",
    );
  return provider.roleArn;
}
