/**
 * The logical IDs of the example stack's stateful resources, as deployed today. A changed ID
 * replaces the resource in a user's account: new token secrets (the bank keeps sending the old
 * ones), new queues (stored notifications left behind), a new table (every published change
 * forgotten, so published again), a new bus (every consumer's rules gone), a new journal bucket
 * (the raw notifications kept for years left in a bucket nothing writes), and a renamed
 * registration, whose Delete would clear what its replacement just registered. Change one only
 * on purpose, with a migration note in docs/changes.md.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BankWebhooksExampleStack } from '../../examples/basic-receiver/app';

const PINNED: Record<string, string> = {
  BankWebhooksPaymentCallbackToken849791A1: 'AWS::SecretsManager::Secret',
  BankWebhooksBoletoToken8ECAB27A: 'AWS::SecretsManager::Secret',
  BankWebhooksQueue4FBBE5CE: 'AWS::SQS::Queue',
  BankWebhooksDeadLetterQueueB0D65D8C: 'AWS::SQS::Queue',
  BankWebhooksProcessorLookQueue4DDF1527: 'AWS::SQS::Queue',
  BankWebhooksProcessorLookDeadLetterQueueDC3B98B1: 'AWS::SQS::Queue',
  BankWebhooksProcessorIdempotencyTable4E929585: 'AWS::DynamoDB::Table',
  BankWebhooksProcessorEventBusA4C51734: 'AWS::Events::EventBus',
  BankWebhooksProcessorJournal36CB996C: 'AWS::S3::Bucket',
  BankWebhooksPaymentRegistration19289FBB: 'Custom::BankPaymentWebhookRegistration',
  BankWebhooksBoletoContract01010254321C307D5E7: 'Custom::BankBoletoWebhookContract',
};

const STATEFUL_TYPES = new Set(Object.values(PINNED));
/** The example's own consumer queue and its rule's dead-letter queue: not the receiver's state. */
const EXAMPLE_QUEUES = [/^SettlementsInbox[0-9A-F]{8}$/, /^BankWebhooksBoletoSettledRuleDeadLetterQueue[0-9A-F]{8}$/];

it('keeps the logical IDs of the token secrets, queues, table, bus, journal and registrations', () => {
  const resources = Template.fromStack(new BankWebhooksExampleStack(new App(), 'BankWebhooksExample')).toJSON().Resources as Record<string, { Type: string }>;
  const stateful = Object.fromEntries(Object.entries(resources)
    .filter(([id, r]) => STATEFUL_TYPES.has(r.Type) && !EXAMPLE_QUEUES.some((pattern) => pattern.test(id)))
    .map(([id, r]) => [id, r.Type]));
  // Every pinned one is there with its type...
  for (const [id, type] of Object.entries(PINNED)) expect({ id, type: resources[id]?.Type }).toEqual({ id, type });
  // ...and no other resource of those types appeared (a renamed one would show up here).
  expect(stateful).toEqual(PINNED);
});
