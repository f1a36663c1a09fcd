/**
 * What the facade (BankWebhookReceiver) builds in its own scope besides its parts, so construct
 * paths stay its own: the registrations with the bank and the Pix provider, and the operator
 * manifest. Parts never import this file (the guard test says so); the facade only wires.
 */
import { Annotations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { actsAgainstBank, type BankWebhookReceiverProps, contractKey } from './bank-webhook-receiver-props';
import type { BankStage } from './core/bank-stage';
import { ownMappings, writeOperatorManifest } from './core/operator-manifest';
import { checkedBy } from './core/props-validation';
import type { RegistrationProviderSettings } from './core/registration-provider';
import type { BankWebhookEndpoint } from './endpoint/bank-webhook-endpoint';
import { normalizedPixKeys, pixRecordTtlSecondsByKind } from './families/pix/receiver';
import type { SettlementProcessor } from './processor/settlement-processor';
import type { ReconciliationSweep } from './reconciliation/reconciliation-sweep';
import { BoletoWebhookContract } from './registration/boleto-webhook-contract';
import { PaymentWebhookRegistration } from './registration/payment-webhook-registration';
import { PixKeyWebhook } from './registration/pix-key-webhook';
import { PixAccountWebhook } from './registration/pix-account-webhook';
import { entryProviderSettingsSet } from './registration/registration-resource';
import { RecurringWebhookKind } from '../contracts/pix-recurring';

/** The receiver's registrations. */
export interface ReceiverRegistrations {
  readonly paymentRegistration?: PaymentWebhookRegistration;
  readonly boletoContracts: BoletoWebhookContract[];
  readonly pixKeyWebhooks: PixKeyWebhook[];
  /** The account's Pix Automático webhooks (`pix.recurring`): `webhookrec` and `webhookcobr`. */
  readonly pixAccountWebhooks: PixAccountWebhook[];
}

/** The payment webhook, the boleto contracts and each Pix key's webhook, each once the API serving its URL exists (and removed before it goes). */
export function receiverRegistrations(
  scope: Construct,
  props: BankWebhookReceiverProps,
  endpoint: BankWebhookEndpoint,
  provider: RegistrationProviderSettings,
): ReceiverRegistrations {
  // An entry's provider settings are the receiver's own (deprecated there): said once per entry that sets them.
  const entries = [
    ...(props.paymentRegistration ? [['paymentRegistration', props.paymentRegistration] as const] : []),
    ...(props.boletoContracts ?? []).map((entry, i) => [`boletoContracts[${i}]`, entry] as const),
  ];
  for (const [where, entry] of entries) {
    const set = entryProviderSettingsSet(entry);
    if (set.length)
      Annotations.of(scope).addWarningV2(
        'cdk-bank-webhooks:entryProviderSettings',
        `${where} sets ${set.join(', ')}, deprecated there: the stack's registration provider takes the receiver's own (an entry's must equal them). Set them on the receiver and remove them from ${where}.`,
      );
  }
  // Registrations with the bank, once the API serves the URLs (and removed before it goes).
  let paymentRegistration: PaymentWebhookRegistration | undefined;
  if (props.paymentRegistration) {
    paymentRegistration = new PaymentWebhookRegistration(
      scope,
      'PaymentRegistration',
      checkedBy({
        ...provider,
        ...props.paymentRegistration,
        bank: props.bank,
        url: endpoint.paymentsUrl,
        token: endpoint.paymentCallbackToken,
      }),
    );
    paymentRegistration.node.addDependency(endpoint.api);
  }
  const boletoContracts = (props.boletoContracts ?? []).map((options, i) => {
    // Named by what the bank keys the contract by, so reordering the list replaces nothing.
    const key = contractKey(props, options);
    const contract = new BoletoWebhookContract(
      scope,
      key ? `BoletoContract-${key}` : `BoletoContract${i}`,
      checkedBy({
        ...provider,
        ...options,
        bank: props.bank,
        url: endpoint.boletoUrl,
        token: endpoint.boletoToken,
        header: endpoint.boletoTokenHeader,
      }),
    );
    contract.node.addDependency(endpoint.api);
    return contract;
  });

  // Each Pix key's webhook, once the Pix API serves its URL (named by the key: reordering replaces nothing).
  const pixKeyWebhooks =
    props.pix && actsAgainstBank(props) && props.pix.registerKeyWebhooks !== false
      ? normalizedPixKeys(props.pix).map((chave) => {
          const webhook = new PixKeyWebhook(
            scope,
            `PixKey-${chave}`,
            checkedBy({
              ...provider,
              connection: props.pix!.connection,
              chave,
              url: endpoint.pixUrl!,
              takeOverExisting: props.pix!.takeOverExisting,
            }),
          );
          webhook.node.addDependency(endpoint);
          return webhook;
        })
      : [];
  // The account's Pix Automático webhooks, on the same URL (the provider appends /rec and /cobr).
  const pixAccountWebhooks =
    props.pix?.recurring && actsAgainstBank(props)
      ? [RecurringWebhookKind.REC, RecurringWebhookKind.COBR].map((webhook) => {
          const registration = new PixAccountWebhook(
            scope,
            `PixRecurring-${webhook}`,
            checkedBy({
              ...provider,
              connection: props.pix!.connection,
              webhook,
              url: endpoint.pixUrl!,
              takeOverExisting: props.pix!.takeOverExisting,
            }),
          );
          registration.node.addDependency(endpoint);
          return registration;
        })
      : [];
  return {
    ...(paymentRegistration ? { paymentRegistration } : {}),
    boletoContracts,
    pixKeyWebhooks,
    pixAccountWebhooks,
  };
}

/** The operator manifest of a receiver: what the operator CLI finds it by. */
export function receiverManifest(
  scope: Construct,
  props: BankWebhookReceiverProps,
  built: ReceiverRegistrations & {
    readonly receiverName: string;
    readonly stage: BankStage;
    readonly endpoint: BankWebhookEndpoint;
    readonly processor: SettlementProcessor;
    readonly reconciliation?: ReconciliationSweep;
  },
): void {
  const {
    receiverName,
    stage,
    endpoint,
    processor,
    reconciliation,
    paymentRegistration,
    boletoContracts,
    pixKeyWebhooks,
    pixAccountWebhooks,
  } = built;
  // What the operator CLI finds the receiver by (cdk-bank-webhooks/docs/operations.md, "The operator CLI").
  writeOperatorManifest(scope, 'OperatorManifest', {
    receiverName,
    stage,
    codigoBeneficiario: processor.account.codigoBeneficiario,
    queue: endpoint.queue,
    deadLetterQueue: endpoint.deadLetterQueue,
    lookQueue: processor.lookQueue,
    lookDeadLetterQueue: processor.lookDeadLetterQueue,
    tableName: processor.idempotencyTable.tableName,
    recordsLifetime: processor.idempotencyTtl,
    recordsLifetimeByKind: pixRecordTtlSecondsByKind(props.pix, processor.idempotencyTtl),
    eventBus: processor.eventBus,
    archive: processor.eventArchive,
    journalBucket: processor.journalBucket,
    auditLog:
      processor.auditLog && processor.auditDeadLetterQueue
        ? { group: processor.auditLog, deadLetterQueue: processor.auditDeadLetterQueue }
        : undefined,
    pixKeys: props.pix ? normalizedPixKeys(props.pix) : undefined,
    mappings: ownMappings(props),
    receiverFunction: endpoint.receiverFunction,
    processorFunction: processor.processorFunction,
    sweepFunction: reconciliation?.sweepFunction,
    accessLogGroup: endpoint.accessLogGroup,
    registrations: reconciliation
      ? [
          ...(paymentRegistration ? [paymentRegistration._watched] : []),
          ...boletoContracts.map((c) => c._watched),
          ...pixKeyWebhooks.map((k) => k._watched),
          ...pixAccountWebhooks.map((k) => k._watched),
        ]
      : [],
  });
}
