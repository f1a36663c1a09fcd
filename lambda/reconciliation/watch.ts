/**
 * The registration watch: the bank can deactivate, block or lose a registration without telling
 * anyone, and every notification after that is lost. On each sweep, both registrations are read
 * and compared with this stack's (URL, token, status; the token compared by digest, never
 * logged); each difference is a `RegistrationDrift`. With `repairRegistrations`, ours is put back
 * through the very steps a deploy uses, which never replace another party's registration unless
 * `takeOverExisting` says so; and never while the stack is being deleted or updated (its
 * schedule, deleted before the registrations, is gone or disabled then).
 */
import type { BoletoContractSpec, PaymentWebhookSpec } from '../../contracts/registration';
import { tokenMatches } from '../shared/token-check';
import { describeUrl, sameUrl, type StepContext } from '../bank/registration/steps';
import { contractIdOf, createContract, findContracts } from '../bank/registration/boleto-contract';
import { readPaymentWebhookHeld, registerPaymentWebhook } from '../bank/registration/payment-webhook';
import { RegistrationDrift, SweepMetric, type WatchFinding, type WatchSettings } from '../../contracts/reconciliation';

export interface WatchDeps {
  readonly ctx: StepContext;
  /** The values a token secret accepts now (current, and pending during a rotation). */
  readonly acceptedTokens: (secretArn: string) => Promise<string[]>;
  readonly settings: WatchSettings;
  /** Whether the stack is in a steady state where a repair is wanted (its schedule exists and is enabled). */
  readonly repairAllowed: () => Promise<boolean>;
  /** Counts a metric; `details` go in its line (not dimensions: one alarm covers every registration). */
  readonly count: (metric: string, details: Record<string, string>) => void;
}

async function paymentDrift(ctx: StepContext, spec: PaymentWebhookSpec, acceptedTokens: WatchDeps['acceptedTokens']): Promise<{ drift: RegistrationDrift[]; held: string }> {
  const held = await readPaymentWebhookHeld(ctx);
  if (!held.url) return { drift: [RegistrationDrift.MISSING], held: 'nothing' };
  if (!sameUrl(held.url, spec.url)) return { drift: [RegistrationDrift.OTHER_URL], held: describeUrl(held.url) };
  return { drift: tokenMatches(held.token ?? undefined, await acceptedTokens(spec.tokenSecretArn)) ? [] : [RegistrationDrift.TOKEN], held: describeUrl(held.url) };
}

async function contractDrift(ctx: StepContext, spec: BoletoContractSpec, acceptedTokens: WatchDeps['acceptedTokens']): Promise<{ drift: RegistrationDrift[]; held: string }> {
  const [held] = await findContracts(ctx, spec);
  if (!held) return { drift: [RegistrationDrift.MISSING], held: 'nothing' };
  const drift: RegistrationDrift[] = [];
  if (!sameUrl(held.url, spec.url)) drift.push(RegistrationDrift.OTHER_URL);
  for (const field of ['contratoStatus', 'urlStatus'] as const) {
    if (held[field] === 'BLOQUEADO' && spec[field] !== 'BLOQUEADO') drift.push(RegistrationDrift.BLOCKED);
    else if (held[field] === 'INATIVO' && spec[field] !== 'INATIVO') drift.push(RegistrationDrift.INACTIVE);
  }
  if (!drift.includes(RegistrationDrift.OTHER_URL) && spec.tokenSecretArn) {
    if (!tokenMatches(typeof held.token === 'string' ? held.token : undefined, await acceptedTokens(spec.tokenSecretArn))) drift.push(RegistrationDrift.TOKEN);
  }
  return { drift: [...new Set(drift)], held: `contract ${contractIdOf(held) ?? '(no id)'} at ${describeUrl(held.url)}` };
}

/** Reads every registration of the stack, reports each drift, and repairs what it may. */
export async function watchRegistrations(deps: WatchDeps): Promise<WatchFinding[]> {
  const { ctx, settings } = deps;
  const checks: Array<{ name: string; takeOver: boolean; read: () => Promise<{ drift: RegistrationDrift[]; held: string }>; repair: () => Promise<void> }> = [];
  if (settings.payment) {
    const spec = settings.payment;
    checks.push({ name: 'payments', takeOver: !!spec.takeOverExisting, read: () => paymentDrift(ctx, spec, deps.acceptedTokens), repair: () => registerPaymentWebhook(ctx, spec) });
  }
  for (const spec of settings.contracts) {
    checks.push({
      name: `boleto ${spec.cooperativa}/${spec.posto}/${spec.codBeneficiario}`, takeOver: !!spec.takeOverExisting,
      read: () => contractDrift(ctx, spec, deps.acceptedTokens), repair: async () => { await createContract(ctx, spec); },
    });
  }
  const findings: WatchFinding[] = [];
  for (const check of checks) {
    const { drift, held } = await check.read();
    if (!drift.length) {
      findings.push({ registration: check.name, drift, repaired: false });
      continue;
    }
    deps.count(SweepMetric.REGISTRATION_DRIFT, { registration: check.name, drift: drift.join(',') });
    let notRepaired: string | undefined;
    if (!settings.repair && !check.takeOver) notRepaired = 'repairRegistrations is off';
    else if (drift.includes(RegistrationDrift.OTHER_URL) && !check.takeOver) notRepaired = 'the bank holds another party\'s URL (takeOverExisting is off)';
    else if (!(await deps.repairAllowed())) notRepaired = 'the stack is being deleted or updated (its schedule is gone or disabled)';
    ctx.log.warn('The bank\'s registration is not this stack\'s', { registration: check.name, drift, held, repair: notRepaired ? `no: ${notRepaired}` : 'yes' });
    if (notRepaired) {
      findings.push({ registration: check.name, drift, repaired: false, notRepaired });
      continue;
    }
    await check.repair();
    deps.count(SweepMetric.REGISTRATIONS_REPAIRED, { registration: check.name });
    ctx.log.info('Put this stack\'s registration back at the bank', { registration: check.name });
    findings.push({ registration: check.name, drift, repaired: true });
  }
  return findings;
}
