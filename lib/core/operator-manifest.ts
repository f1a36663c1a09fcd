import { CfnOutput, type Duration, Lazy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  LogSource,
  OPERATOR_MANIFEST_DESCRIPTION,
  OPERATOR_MANIFEST_KIND,
  type OperatorManifest,
} from '../../contracts/operations';
import { type BoletoMovementMapping, type PaymentStatusMapping, ProcessorDefaults } from '../../contracts/processor';

/** The resources of one receiver the operator CLI acts on. */
export interface OperatorManifestResources {
  readonly receiverName: string;
  readonly stage: string;
  readonly codigoBeneficiario: string;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly lookQueue: sqs.IQueue;
  readonly lookDeadLetterQueue: sqs.IQueue;
  readonly tableName: string;
  /** The processor's idempotencyTtl: how long a subject's record outlives its last write. */
  readonly recordsLifetime: Duration;
  /** Lifetimes (seconds) of the kinds of subject whose records live longer than `recordsLifetime`, by kind. */
  readonly recordsLifetimeByKind?: Readonly<Record<string, number>>;
  readonly eventBus: events.IEventBus;
  readonly archive?: events.Archive;
  readonly journalBucket?: s3.IBucket;
  /** The audit log's group and its dead-letter queue (none unless `auditLog.enabled`). */
  readonly auditLog?: { readonly group: logs.ILogGroup; readonly deadLetterQueue: sqs.IQueue };
  /** The receiver's Pix keys, normalized (none without `pix`). */
  readonly pixKeys?: readonly string[];
  /** The processor's own mappings, where the receiver sets them. */
  readonly mappings?: OperatorManifest['mappings'];
  readonly receiverFunction: lambda.Function;
  readonly processorFunction: lambda.Function;
  readonly sweepFunction?: lambda.Function;
  /** The REST API's access log group. */
  readonly accessLogGroup: logs.ILogGroup;
  /** The registrations the watch compares with the bank (none: the receiver registers nothing, or nothing watches). */
  readonly registrations?: readonly { readonly label: string; readonly appliedRecord: string }[];
}

const queue = (q: sqs.IQueue) => ({ url: q.queueUrl, arn: q.queueArn });

/**
 * Writes the receiver's operator manifest as a stack output of `scope` (`id`): its resources by
 * name, and the names of every alarm made under `scope` (read when the stack is synthesized, so
 * alarms added later count). `cdk-bank-webhooks status|trace|dlq --stack <name>` reads it.
 */
export function writeOperatorManifest(scope: Construct, id: string, r: OperatorManifestResources): CfnOutput {
  const manifest = Lazy.any({
    produce: (): OperatorManifest => ({
      kind: OPERATOR_MANIFEST_KIND,
      receiverName: r.receiverName,
      stage: r.stage,
      codigoBeneficiario: r.codigoBeneficiario,
      queues: {
        notifications: queue(r.queue),
        notificationsDeadLetter: queue(r.deadLetterQueue),
        looks: queue(r.lookQueue),
        looksDeadLetter: queue(r.lookDeadLetterQueue),
      },
      table: r.tableName,
      recordsLifetimeSeconds: r.recordsLifetime.toSeconds(),
      // Written only where a kind lives longer than the rest (the processor's recordTtlSecondsByKind).
      ...(r.recordsLifetimeByKind ? { recordsLifetimeSecondsByKind: r.recordsLifetimeByKind } : {}),
      bus: {
        name: r.eventBus.eventBusName,
        arn: r.eventBus.eventBusArn,
        ...(r.archive ? { archive: r.archive.archiveName } : {}),
      },
      ...(r.journalBucket ? { journalBucket: r.journalBucket.bucketName } : {}),
      ...(r.auditLog
        ? { auditLog: { group: r.auditLog.group.logGroupName, deadLetterQueue: queue(r.auditLog.deadLetterQueue) } }
        : {}),
      ...(r.pixKeys?.length ? { pixKeys: [...r.pixKeys] } : {}),
      ...(r.mappings && Object.keys(r.mappings).length ? { mappings: r.mappings } : {}),
      functions: {
        receiver: r.receiverFunction.functionName,
        processor: r.processorFunction.functionName,
        ...(r.sweepFunction ? { sweep: r.sweepFunction.functionName } : {}),
      },
      logGroups: {
        [LogSource.RECEIVER]: r.receiverFunction.logGroup.logGroupName,
        [LogSource.PROCESSOR]: r.processorFunction.logGroup.logGroupName,
        ...(r.sweepFunction ? { [LogSource.SWEEP]: r.sweepFunction.logGroup.logGroupName } : {}),
        [LogSource.ACCESS]: r.accessLogGroup.logGroupName,
      },
      registrations: (r.registrations ?? []).map((w) => ({ label: w.label, record: w.appliedRecord })),
      alarms: scope.node
        .findAll()
        .filter((c): c is cloudwatch.Alarm => c instanceof cloudwatch.Alarm)
        .map((alarm) => alarm.alarmName),
    }),
  });
  return new CfnOutput(scope, id, {
    description: OPERATOR_MANIFEST_DESCRIPTION,
    value: Stack.of(scope).toJsonString(manifest),
  });
}

/** The processor's mappings the receiver sets (with the defaults filled in, as the processor's settings do), for the manifest. */
export function ownMappings(props: {
  readonly boletoMovements?: Partial<BoletoMovementMapping>;
  readonly paymentStatuses?: Partial<PaymentStatusMapping>;
}): OperatorManifest['mappings'] {
  return {
    ...(props.boletoMovements
      ? { boletoMovements: { ...ProcessorDefaults.boletoMovements, ...props.boletoMovements } }
      : {}),
    ...(props.paymentStatuses
      ? { paymentStatuses: { ...ProcessorDefaults.paymentStatuses, ...props.paymentStatuses } }
      : {}),
  };
}
