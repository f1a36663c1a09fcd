/**
 * The demo's Pix: charges paid (immediate and with a due date), a static code, several Pix in one
 * callback, a refund asked for and one the provider made unasked (MED), a charge whose answer
 * leaves its Pix list out, another customer's Pix and a validation call sent to our URL.
 */
import { BankEventDetailType } from '../../contracts/events';
import { RefundNature, RefundStatus } from '../../contracts/pix';
import { ProcessorMetric } from '../../contracts/processor';
import { PixChargePixList } from '../../simulator/pix/pix-behaviour';
import type { LocalRunner } from './runner';

/** A demo step: acts, says what it did, waits for the verified events. */
export type DemoStep = (description: string, act: () => Promise<string | void>) => Promise<void>;

/** What the Pix steps published, for the demo's verdict. */
export interface DemoPixOutcome {
  /** Pix Received and Pix Refund events published so far. */
  readonly published: () => number;
  /** Pix Refund events of a MED refund, and Pix Received of the charge whose answer left its Pix list out. */
  readonly medRefunds: number;
  readonly quietCharge: number;
  /** Another customer's Pix dropped (never published). */
  readonly foreign: number;
  /** Whether Pix Automático's events say what the provider did: the recurrence approved, one charge paid (its Pix received once), one failed. */
  readonly recurring: { readonly ok: boolean };
}

/** Runs the demo's Pix steps against the runner's provider. */
export async function demoPix(
  runner: LocalRunner,
  step: DemoStep,
  say: (line: string) => void,
): Promise<DemoPixOutcome> {
  const pixState = await runner.control.pix.state();
  const pixKeys = pixState.keys;
  say(
    `Pix: the webhook of ${pixState.webhooks.length} keys → ${pixState.webhooks[0]?.webhookUrl ?? '(none)'}, registered at deploy (the provider appends /pix)`,
  );
  const pixTypes: readonly string[] = [BankEventDetailType.PIX_RECEIVED, BankEventDetailType.PIX_REFUND];
  const pixPublished = (): number => runner.verifiedEvents().filter((e) => pixTypes.includes(e.detailType)).length;
  let paidPix = '';
  await step(
    'Pix: a charge paid, a charge with a due date paid, a static code, three Pix of one key in one callback',
    async () => {
      const cob = await runner.control.pix.createCharge({ valor: '110.00' });
      const cobv = await runner.control.pix.createCharge({ kind: 'cobv', valor: '75.50' });
      paidPix = (await runner.control.pix.payCharge(cob.txid, { infoPagador: 'pedido 42' })).pix[0].endToEndId;
      await runner.control.pix.payCharge(cobv.txid);
      await runner.control.pix.payKey(pixKeys[0], { valor: '9.90', txid: 'LOJA01' });
      await runner.control.pix.payMany([1, 2, 3].map((i) => ({ chave: pixKeys[0], valor: `${i}.00`, txid: `QR${i}` })));
      return '→ each confirmed with GET /pix under our credentials (and the charge with GET /cob or /cobv)';
    },
  );
  await step("Pix: a refund returned, and another customer's Pix sent to our URL", async () => {
    const refund = await runner.control.pix.refund(paidPix, { valor: '10.00' });
    await runner.control.pix.settleRefund(paidPix, refund.id, RefundStatus.RETURNED);
    await runner.control.pix.deliverForeign({ url: runner.pixUrl });
    await runner.control.pix.sendValidation({ url: runner.pixUrl });
  });
  await step(
    'Pix: the provider returns part of a Pix unasked (MED, suspected fraud), and a charge whose answer leaves its pix list out is paid',
    async () => {
      const med = await runner.control.pix.refund(paidPix, { valor: '20.00', natureza: RefundNature.MED_FRAUDE });
      await runner.control.pix.settleRefund(paidPix, med.id, RefundStatus.RETURNED);
      await runner.control.setBehaviour({ pixChargePixList: PixChargePixList.LEFT_OUT });
      const quiet = await runner.control.pix.createCharge({ valor: '42.00' });
      await runner.control.pix.payCharge(quiet.txid);
    },
  );
  await runner.control.setBehaviour({ pixChargePixList: PixChargePixList.LISTED });
  const recurring = await demoRecurring(runner, step, say);
  const medRefunds = runner
    .verifiedEvents()
    .filter(
      (e) =>
        e.detailType === String(BankEventDetailType.PIX_REFUND) &&
        (e.detail as { refund: { natureza?: string } }).refund.natureza === String(RefundNature.MED_FRAUDE),
    );
  const quietCharge = runner
    .verifiedEvents()
    .filter(
      (e) =>
        e.detailType === String(BankEventDetailType.PIX_RECEIVED) &&
        (e.detail as { pix: { amount: { decimal: string } } }).pix.amount.decimal === '42.00',
    );
  say(
    `  → ${medRefunds.length} Pix Refund with natureza MED_FRAUDE (a consumer routes it apart from a refund it asked for); the 42.00 charge's Pix published ${quietCharge.length} time(s): concluded by the Pix whose own answer names its txid`,
  );
  const foreign = runner.counts().metrics[ProcessorMetric.FOREIGN] ?? 0;
  say(
    `Pix published: ${pixPublished()} · another customer's dropped: ${foreign} (never published, never quarantined) · validation calls answered: ${runner.counts().metrics.ValidationCalls ?? 0}`,
  );
  return {
    published: pixPublished,
    medRefunds: medRefunds.length,
    quietCharge: quietCharge.length,
    foreign,
    recurring,
  };
}

/**
 * Pix Automático: a recurrence approved, two charges issued, one paid and one failed (no retries):
 * each change verified with GET /rec or GET /cobr, the paid charge's Pix a Pix Received.
 */
async function demoRecurring(
  runner: LocalRunner,
  step: DemoStep,
  say: (line: string) => void,
): Promise<DemoPixOutcome['recurring']> {
  const state = await runner.control.pix.recurringState();
  say(
    `Pix Automático: the account's webhookrec and webhookcobr → ${state.webhooks.rec?.webhookUrl ?? '(none)'}, registered at deploy (the provider appends /rec and /cobr)`,
  );
  // One step per change the provider makes, each verified before the next (a look sees the provider's state as it is then).
  let idRec = '';
  await step('Pix Automático: the company creates a recurrence (49.90 a month), waiting for the payer', async () => {
    idRec = (await runner.control.pix.createRecurrence({ valorRec: '49.90' })).idRec;
  });
  const txids: string[] = [];
  await step('Pix Automático: the payer approves it; the company issues two charges, both scheduled', async () => {
    await runner.control.pix.approveRecurrence(idRec);
    for (let i = 0; i < 2; i++) txids.push((await runner.control.pix.issueRecurringCharge(idRec)).txid);
  });
  let paidPix = '';
  await step('Pix Automático: one charge paid, the other failed (no retries allowed)', async () => {
    paidPix = (await runner.control.pix.payRecurringCharge(txids[0])).paidPix.endToEndId;
    await runner.control.pix.failRecurringAttempt(txids[1]);
    return '→ each change confirmed with GET /rec or GET /cobr under our credentials';
  });
  const events = runner.verifiedEvents();
  const of = (type: BankEventDetailType) => events.filter((e) => e.detailType === String(type));
  const recurrences = of(BankEventDetailType.PIX_RECURRENCE_CHANGED).map(
    (e) => (e.detail as { state: { status: string } }).state.status,
  );
  const charges = of(BankEventDetailType.PIX_RECURRING_CHARGE_CHANGED).map((e) => {
    const d = e.detail as { state: { status: string }; recurringCharge: { attempt?: { status: string } } };
    return `${d.state.status}${d.recurringCharge.attempt ? `/${d.recurringCharge.attempt.status}` : ''}`;
  });
  const paid = of(BankEventDetailType.PIX_RECEIVED).filter(
    (e) => (e.detail as { pix: { endToEndId: string } }).pix.endToEndId === paidPix,
  );
  say(
    `  → Pix Recurrence Changed: ${recurrences.join(' → ') || 'none'} · Pix Recurring Charge Changed: ${charges.join(', ') || 'none'} · the paid charge's Pix published as Pix Received ${paid.length} time(s), the money's only event`,
  );
  return {
    ok:
      recurrences[recurrences.length - 1] === 'APROVADA' &&
      charges.includes('CONCLUIDA/PAGA') &&
      charges.some((c) => c.startsWith('REJEITADA')) &&
      paid.length === 1,
  };
}
