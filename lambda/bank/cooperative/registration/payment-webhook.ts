/**
 * The payment callback registration (spec 4.2): GET and PATCH
 * `{registration_base_url}/v1/associado/webhook`, with the payments token and the `x-conta`,
 * `x-cooperativa` and `x-documento` headers of the account (the bank client adds them).
 */
import type { PaymentWebhookSpec } from '../../../../contracts/registration';
import { answerObject } from '../answers';
import { describeUrl, failAfterUndo, keepTimeToUndo, sameUrl, type StepContext } from './steps';

export const PAYMENT_WEBHOOK_PATH = '/v1/associado/webhook';
/** GETs made to confirm a PATCH before giving up (the bank may take a moment to answer the new value). */
const CONFIRM_ATTEMPTS = 3;
const CONFIRM_PAUSE_MS = 1_000;

function webhookUrl(ctx: StepContext): string {
  return ctx.bank.settings.registrationBaseUrl + PAYMENT_WEBHOOK_PATH;
}

/** What the bank holds for the account: `urlCallback` and `authorizationCallback` (kept in memory only, to put it back or compare). */
export interface HeldRegistration {
  readonly url: string | null;
  readonly token: string | null;
}

export async function readPaymentWebhookHeld(ctx: StepContext): Promise<HeldRegistration> {
  const operation = `GET ${PAYMENT_WEBHOOK_PATH} (read the payment callback registration)`;
  const answer = await ctx.bank.call({
    operation,
    api: 'payments',
    method: 'GET',
    url: webhookUrl(ctx),
    deadline: ctx.deadline,
  });
  const held = answerObject(answer.body, operation, answer.status);
  const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
  return { url: text(held.urlCallback), token: text(held.authorizationCallback) };
}

/** The `urlCallback` the bank holds for the account, or null. */
export async function readPaymentWebhook(ctx: StepContext): Promise<string | null> {
  return (await readPaymentWebhookHeld(ctx)).url;
}

async function patch(
  ctx: StepContext,
  operation: string,
  urlCallback: string,
  authorizationCallback: string,
): Promise<void> {
  await ctx.bank.call({
    operation: `PATCH ${PAYMENT_WEBHOOK_PATH} (${operation})`,
    api: 'payments',
    method: 'PATCH',
    url: webhookUrl(ctx),
    body: { urlCallback, authorizationCallback },
    deadline: ctx.deadline,
  });
}

/**
 * Create and Update: reads what the bank holds first, and refuses to replace another URL unless
 * `takeOverExisting` (`previousUrl`, an update's old URL, is ours). Then PATCHes both fields and
 * GETs until the bank answers our URL. When that confirmation fails, or the PATCH fails but the
 * bank shows it took effect (its answer lost), what the bank held before is put back (or ours
 * cleared) within the same invocation, with time kept for it, before failing:
 * CloudFormation never calls Delete for a failed Create, so nothing else would.
 */
export async function registerPaymentWebhook(
  ctx: StepContext,
  spec: PaymentWebhookSpec,
  previousUrl?: string,
): Promise<void> {
  const token = await ctx.tokenValue(spec.tokenSecretArn);
  const before = await readPaymentWebhookHeld(ctx);
  if (before.url && !sameUrl(before.url, spec.url) && !(previousUrl && sameUrl(before.url, previousUrl))) {
    if (!spec.takeOverExisting) {
      throw new Error(
        `The bank already holds payment callback ${describeUrl(before.url)} for this account, not this stack's ${spec.url}: another stack (staging and production register with the same bank) or a person registered it. ` +
          'Nothing was changed. To replace it, set takeOverExisting: true on the registration; to keep it, remove this registration or use another account.',
      );
    }
    ctx.log.warn('Taking over the payment callback another party registered (takeOverExisting)', {
      replaced: describeUrl(before.url),
      url: spec.url,
    });
  }
  const confirm = keepTimeToUndo(ctx);
  try {
    await patch(confirm, 'register the payment callback', spec.url, token);
  } catch (error) {
    // The bank may have made the change and lost its answer: if it shows ours now, put back what it held.
    return failAfterUndo(error, 'the payment callback', async () => {
      const now = await readPaymentWebhookHeld(ctx);
      if (!sameUrl(now.url, spec.url) || (now.url === before.url && now.token === before.token)) return undefined;
      return putBack(ctx, before);
    });
  }
  let held: HeldRegistration = { url: null, token: null };
  try {
    for (let attempt = 1; attempt <= CONFIRM_ATTEMPTS; attempt++) {
      held = await readPaymentWebhookHeld(confirm);
      // Our URL, with our token when the bank answers one.
      if (sameUrl(held.url, spec.url) && (held.token === null || held.token === token)) {
        ctx.log.info('The bank holds our payment callback', { url: spec.url });
        return;
      }
      if (attempt < CONFIRM_ATTEMPTS && Date.now() + CONFIRM_PAUSE_MS < confirm.deadline)
        await ctx.sleep(CONFIRM_PAUSE_MS);
      else break;
    }
  } catch (error) {
    await failAfterUndo(error, 'the payment callback', () => putBack(ctx, before));
  }
  if (sameRegistration(held, before)) {
    // The PATCH may have taken effect behind reads that lag: put back what was there, as the contract paths do,
    // so a failed Create (which CloudFormation never deletes) leaves the bank as it found it.
    return failAfterUndo(
      new Error(
        `The bank accepted PATCH ${PAYMENT_WEBHOOK_PATH} but GET still answers what it held before (${describeUrl(before.url)}) after ${CONFIRM_ATTEMPTS} reads: the change could not be confirmed; deploy again`,
      ),
      'the payment callback',
      () => putBack(ctx, before),
    );
  }
  // The bank answers a third value: someone registered at the same moment; theirs is left alone.
  throw new Error(
    `The bank accepted PATCH ${PAYMENT_WEBHOOK_PATH} but GET still answers ${sameUrl(held.url, spec.url) ? 'another authorizationCallback for' : 'urlCallback'} ${describeUrl(held.url)} instead of ${spec.url}: ` +
      'someone may have registered another value at the same time; deploy again to register ours.',
  );
}

/** Whether two readings of the registration hold the same URL and token. */
function sameRegistration(a: HeldRegistration, b: HeldRegistration): boolean {
  return (a.url === null ? b.url === null : sameUrl(a.url, b.url ?? '')) && a.token === b.token;
}

/** PATCHes back what the bank held before (or clears ours), and says so. */
async function putBack(ctx: StepContext, before: HeldRegistration): Promise<string> {
  await patch(
    ctx,
    before.url ? 'put back the previous payment callback' : 'clear our payment callback',
    before.url ?? '',
    before.token ?? '',
  );
  ctx.log.warn('The change could not be confirmed: put back what the bank held before', {
    restored: describeUrl(before.url),
  });
  return `what the bank held before (${describeUrl(before.url)}) was put back`;
}

export type PaymentWebhookRemoval = 'cleared' | 'nothing registered' | 'registered by someone else';

/**
 * Delete: clears both fields with "" (spec 2.2), but only while the bank holds our URL; another
 * registration made since is left alone, and nothing registered is fine.
 */
export async function unregisterPaymentWebhook(
  ctx: StepContext,
  spec: PaymentWebhookSpec,
): Promise<PaymentWebhookRemoval> {
  const held = await readPaymentWebhook(ctx);
  if (!held) return 'nothing registered';
  if (!sameUrl(held, spec.url)) {
    ctx.log.warn('The bank holds another payment callback: left alone', { ours: spec.url, held: describeUrl(held) });
    return 'registered by someone else';
  }
  await patch(ctx, 'clear the payment callback', '', '');
  return 'cleared';
}
