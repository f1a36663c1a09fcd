import { Duration, Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { type CooperativeConnectionProps, checkRealBank } from './families/cooperative/connection';
import { PropsValidation } from './core/props-validation';
import { checkRealPixProvider } from './families/pix/connection';
import { checkPixSweep, type PixReceiverProps } from './families/pix/receiver';
import { ProcessorDefaults } from '../contracts/processor';
import { SweepDefaults } from '../contracts/reconciliation';
import { BankStage } from './core/bank-stage';
import {
  type BankWebhookEndpointProps,
  checkBankWebhookEndpoint,
  type RouteSilenceOptions,
} from './endpoint/bank-webhook-endpoint-props';
import { minimumVisibilitySeconds } from './core/timing';
import { checkSettlementProcessor, type SettlementProcessorOptions } from './processor/settlement-processor-props';
import { checkReconciliationSweep, type ReconciliationOptions } from './reconciliation/reconciliation-sweep-props';
import {
  type BoletoWebhookContractOptions,
  checkContractOptions,
  contractBeneficiario,
} from './registration/boleto-webhook-contract';
import type { PaymentWebhookRegistrationOptions } from './registration/payment-webhook-registration';
import { checkRegistrationOptions } from './registration/registration-resource';

/**
 * Properties of `BankWebhookReceiver`: those of the endpoint (BankWebhookEndpointProps) and
 * of the processor (SettlementProcessorOptions), the bank, the registrations and the sweep.
 */
export interface BankWebhookReceiverProps extends BankWebhookEndpointProps, SettlementProcessorOptions {
  /**
   * How to reach the bank: every notification is verified with its query API before anything
   * is published.
   */
  readonly bank: CooperativeConnectionProps;

  /**
   * Registers `paymentsUrl` as the account's payment callback, with `paymentCallbackToken` as
   * `authorizationCallback`, at deploy time, and removes it at destroy (see PaymentWebhookRegistration).
   * @default - not registered: register paymentsUrl with the bank yourself
   */
  readonly paymentRegistration?: PaymentWebhookRegistrationOptions;

  /**
   * Boleto webhook contracts kept at the bank, each with `url` = `boletoUrl`, `token` = the
   * boleto token and `header` = `boletoTokenHeader` (see BoletoWebhookContract). One per
   * cooperativa/posto/beneficiário.
   * @default - none: make the contract with the bank yourself
   */
  readonly boletoContracts?: BoletoWebhookContractOptions[];

  /**
   * The reconciliation sweep: every `interval` it reads the bank's settled boletos of today and
   * the last days, and queries the payments still pending, so a settlement whose notification the
   * bank never delivered is still verified and published (once, with `trigger: reconciliation`).
   * See cdk-bank-webhooks/docs/reconciliation.md.
   * @default - on in PRODUCTION (see `stage`) and against a BankSandbox: every 15 minutes, today and the last 3 days, pending payments for 7 days; off in NON_PRODUCTION against the real bank
   */
  readonly reconciliation?: ReconciliationOptions;

  /**
   * What this stack is to the bank, which has only production. PRODUCTION registers (when given
   * registrations), sweeps and watches; NON_PRODUCTION (staging) does none of these against the
   * bank: it may not take registrations, and has no reconciliation sweep, registration watch or
   * Track Payment rule. Against a BankSandbox (`bank: sandbox.connection`) a NON_PRODUCTION
   * receiver does all of them, against the sandbox. See cdk-bank-webhooks/docs/usage.md, "Staging beside production".
   * @default - NON_PRODUCTION against a BankSandbox; otherwise PRODUCTION when the receiver registers (`paymentRegistration` or `boletoContracts`), NON_PRODUCTION (with a synth warning) when it does not
   */
  readonly stage?: BankStage;

  /**
   * Pix received (the standard Pix API; cdk-bank-webhooks/docs/pix.md): a REST API of its own for the provider's
   * callbacks (`pixUrl`), and every Pix confirmed with the provider's Pix API under this
   * receiver's credentials before it is published (`Pix Received`, `Pix Refund`). A PRODUCTION
   * receiver needs `pix.domain` (mutual TLS, the provider's certificate pinned); without it (a
   * NON_PRODUCTION receiver, with a synth warning) the Pix route checks no client certificate: a
   * forged callback then costs queries, never an event.
   * @default - no Pix
   */
  readonly pix?: PixReceiverProps;

  /**
   * One CloudWatch dashboard for this receiver (ReceiverDashboard): flow, quarantines,
   * recoveries, the bank's 429s, queue ages, the sweep and the watch, every alarm's state.
   * @default true
   */
  readonly dashboard?: boolean;
}

/** The stage a receiver's props ask for, the default filled. */
export function stageOf(props: BankWebhookReceiverProps): BankStage {
  if (props.bank?.simulated) return props.stage ?? BankStage.NON_PRODUCTION;
  return (
    props.stage ??
    (props.paymentRegistration || props.boletoContracts?.length ? BankStage.PRODUCTION : BankStage.NON_PRODUCTION)
  );
}

/**
 * Whether the receiver registers, sweeps and watches against its bank: production against the
 * real one, or any stage against a simulator deployed beside it (BankSandbox).
 */
export function actsAgainstBank(props: BankWebhookReceiverProps): boolean {
  return stageOf(props) === BankStage.PRODUCTION || props.bank?.simulated === true;
}

/**
 * The silence windows a receiver's endpoint gets: none in NON_PRODUCTION; in PRODUCTION, the
 * routes it registers (both when it registers neither: its URLs are registered by hand). A window
 * given is kept.
 */
export function silenceOf(props: BankWebhookReceiverProps, stage: BankStage): RouteSilenceOptions {
  const off = Duration.hours(0);
  const given = props.silenceAlarms ?? {};
  const registers = !!props.paymentRegistration || !!props.boletoContracts?.length;
  const on = (route: boolean) => (stage === BankStage.PRODUCTION && (!registers || route) ? undefined : off);
  return {
    boletoWindow: given.boletoWindow ?? on(!!props.boletoContracts?.length),
    paymentsWindow: given.paymentsWindow ?? on(!!props.paymentRegistration),
  };
}

/** cooperativa/posto/beneficiário of a contract, or undefined when one is a deploy-time value. */
export function contractKey(
  props: BankWebhookReceiverProps,
  contract: BoletoWebhookContractOptions,
): string | undefined {
  const account = props.bank?.account;
  const parts = [
    contract.cooperativa ?? account?.cooperativa,
    contract.posto ?? account?.posto,
    contractBeneficiario(contract) ?? account?.codigoBeneficiario,
  ];
  return parts.every((part) => typeof part === 'string' && !Token.isUnresolved(part)) ? parts.join('-') : undefined;
}

/** Checks every prop of every part, and how the parts fit together, in one error naming the receiver's path. */
export function validateReceiverProps(receiver: Construct, props: BankWebhookReceiverProps): void {
  const v = new PropsValidation('BankWebhookReceiver', receiver.node.path, undefined, Stack.of(receiver).region);
  checkBankWebhookEndpoint(v, props);
  const { vpc: _vpc, vpcSubnets: _subnets, securityGroups: _groups, ...processorProps } = props;
  checkSettlementProcessor(v, processorProps);
  if (props.queueVisibilityTimeout) {
    const minimum = minimumVisibilitySeconds(props.processorTimeout, props.maxBatchingWindow);
    const given = props.queueVisibilityTimeout.toSeconds();
    v.check(
      given >= minimum,
      'queueVisibilityTimeout',
      `must be at least 6 × processorTimeout + maxBatchingWindow = ${minimum} seconds (and at most 12 hours), got ${given} seconds; raise it or lower processorTimeout`,
    );
  }
  checkReconciliationSweep(v, props.reconciliation ?? {}, 'reconciliation.', props.idempotencyTtl, props.eventSource);
  if (props.bank?.simulated) {
    v.check(
      stageOf(props) !== BankStage.PRODUCTION,
      'bank.simulated',
      "is true (a BankSandbox's connection) on a PRODUCTION receiver: production verifies against the real bank. Use the sandbox from a NON_PRODUCTION stack, or give this receiver the real bank's settings",
    );
  } else if (props.bank && stageOf(props) === BankStage.PRODUCTION) {
    checkRealBank(v, receiver, props.bank, 'bank');
  }
  if (!actsAgainstBank(props)) {
    const why =
      "a NON_PRODUCTION stack does nothing against the bank, which has only production (its settlements would reach this stack's consumers, and its registrations replace production's); against a BankSandbox (bank: sandbox.connection) it may";
    v.check(
      !props.paymentRegistration,
      'paymentRegistration',
      `must be left out: ${why}. Set stage: BankStage.PRODUCTION if this stack is production`,
    );
    v.check(
      !props.boletoContracts?.length,
      'boletoContracts',
      `must be left out: ${why}. Set stage: BankStage.PRODUCTION if this stack is production`,
    );
    v.check(
      props.reconciliation?.enabled !== true,
      'reconciliation.enabled',
      `must not be true: ${why}; the sweep would read the bank's real settlements. Set stage: BankStage.PRODUCTION if this stack is production`,
    );
    v.check(
      !props.reconciliation?.trackPaymentSources,
      'reconciliation.trackPaymentSources',
      `must be left out: ${why}; Track Payment looks ask the bank. Set stage: BankStage.PRODUCTION if this stack is production`,
    );
  }
  if (props.pix) {
    v.check(
      stageOf(props) !== BankStage.PRODUCTION || !!props.pix.domain,
      'pix.domain',
      "is required on a PRODUCTION receiver: the Pix callback carries no credential, so production takes it only over mutual TLS on a domain of its own, the provider's certificate pinned (cdk-bank-webhooks/docs/pix.md)",
    );
    if (props.pix.connection && stageOf(props) === BankStage.PRODUCTION)
      checkRealPixProvider(v, receiver, props.pix.connection, 'pix.connection');
    checkPixSweep(
      v,
      props.pix,
      'pix',
      props.reconciliation?.lookbackDays ?? SweepDefaults.lookbackDays,
      props.idempotencyTtl ?? Duration.seconds(ProcessorDefaults.idempotencyTtlSeconds),
    );
  }
  if (props.paymentRegistration) checkRegistrationOptions(v, props.paymentRegistration, 'paymentRegistration.');
  const identities = new Map<string, number>();
  (props.boletoContracts ?? []).forEach((contract, i) => {
    checkContractOptions(v, contract, `boletoContracts[${i}].`, props.bank?.account);
    const key = contractKey(props, contract);
    if (key === undefined) return;
    const first = identities.get(key);
    v.check(
      first === undefined,
      `boletoContracts[${i}]`,
      `is for the same cooperativa/posto/beneficiário as boletoContracts[${first}] (${key}); the bank keeps one contract for each`,
    );
    if (first === undefined) identities.set(key, i);
  });
  v.throwIfInvalid();
}
