import { Annotations, Resource } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { TRACK_PAYMENT_DETAIL_TYPE } from '../../contracts/reconciliation';
import { putEventsDenyStatement, sourceStatementId } from './publisher-policy';

/** The statement id (Sid) of the deny statement for Track Payment events of `source`. */
export function trackPaymentStatementId(source: string): string {
  return sourceStatementId('OnlyNamedTrackPayment', source);
}

/**
 * Denies `events:PutEvents` of Track Payment events with `source` on `busArn` to anyone but
 * `roleArns`. Only that detail type: the source is the company's own, which publishes its other
 * events under it. A batch that mixes another detail type of this source with a Track Payment of
 * another source is refused too (the keys are read for the batch as a whole).
 */
export function trackPaymentStatement(source: string, busArn: string, roleArns: string[]): iam.PolicyStatement {
  return putEventsDenyStatement(
    trackPaymentStatementId(source),
    busArn,
    { 'events:source': [source], 'events:detail-type': [TRACK_PAYMENT_DETAIL_TYPE] },
    roleArns,
  );
}

/**
 * Lets only the named roles put Track Payment events of each source on `bus`: one bus policy
 * statement per source named with producers (made in `scope`), and a synth warning
 * (`cdk-bank-webhooks:trackPaymentProducer`) for each source that has none, since anyone allowed
 * `events:PutEvents` on the bus could then drive looks at the bank's budget. On a bus the app did
 * not create, the warning gives the statement to add.
 */
export function onlyNamedTrackPaymentProducers(
  scope: Construct,
  bus: events.IEventBus,
  sources: readonly string[],
  producers: ReadonlyMap<string, readonly iam.IRole[]>,
): void {
  for (const source of sources) {
    const roles = producers.get(source);
    if (!roles?.length) {
      Annotations.of(scope).addWarningV2(
        'cdk-bank-webhooks:trackPaymentProducer',
        `No producer is named for the Track Payment source "${source}" (reconciliation.trackPaymentProducers): anyone allowed events:PutEvents on the bus can put Track Payment events under it, and each costs looks of the bank's query budget. Name the roles of the code that starts payments, or acknowledge this warning where that is meant.`,
      );
      continue;
    }
    const roleArns = roles.map((role) => role.roleArn);
    if (!Resource.isOwnedResource(bus)) {
      const statement: unknown = trackPaymentStatement(
        source,
        '<the bus ARN>',
        roleArns.map(() => '<a producer role ARN>'),
      ).toStatementJson();
      Annotations.of(scope).addWarningV2(
        'cdk-bank-webhooks:trackPaymentBusPolicy',
        `The event bus ${bus.node.path} was not created in this app, so no policy keeps others from putting Track Payment events of "${source}" on it. Add this statement to the bus's resource policy: ${JSON.stringify(statement)}`,
      );
      continue;
    }
    new events.CfnEventBusPolicy(scope, `TrackPaymentPolicy-${trackPaymentStatementId(source).slice(-16)}`, {
      eventBusName: bus.eventBusName,
      statementId: trackPaymentStatementId(source),
      statement: trackPaymentStatement(source, bus.eventBusArn, roleArns).toStatementJson() as unknown,
    });
  }
}
