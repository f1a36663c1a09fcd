/**
 * The payment callback registration (spec 4.2): GET and PATCH
 * `{registration_base_url}/v1/associado/webhook`, with the payments token and the `x-conta`,
 * `x-cooperativa` and `x-documento` headers of the account (the bank client adds them).
 */
import type { PaymentWebhookSpec } from '../shared/registration-contract';
import { answerObject } from '../shared/bank-client';
import { describeUrl, sameUrl, type StepContext } from './bank-calls';

export const PAYMENT_WEBHOOK_PATH = '/v1/associado/webhook';
/** GETs made to confirm a PATCH before giving up (the bank may take a moment to answer the new value). */
const CONFIRM_ATTEMPTS = 3;
const CONFIRM_PAUSE_MS = 1_000;

function webhookUrl(ctx: StepContext): string {
  return ctx.bank.settings.registrationBaseUrl + PAYMENT_WEBHOOK_PATH;
}

/** The `urlCallback` the bank holds for the account, or null. */
export async function readPaymentWebhook(ctx: StepContext): Promise<string | null> {
  const operation = `GET ${PAYMENT_WEBHOOK_PATH} (read the payment callback registration)`;
  const answer = await ctx.bank.call({ operation, api: 'payments', method: 'GET', url: webhookUrl(ctx), deadline: ctx.deadline });
  const url = answerObject(answer.body, operation, answer.status).urlCallback;
  return typeof url === 'string' && url ? url : null;
}

async function patch(ctx: StepContext, operation: string, urlCallback: string, authorizationCallback: string): Promise<void> {
  await ctx.bank.call({
    operation: `PATCH ${PAYMENT_WEBHOOK_PATH} (${operation})`,
    api: 'payments',
    method: 'PATCH',
    url: webhookUrl(ctx),
    body: { urlCallback, authorizationCallback },
    deadline: ctx.deadline,
  });
}

/** Create and Update: PATCH both fields, then GET until the bank answers our URL. */
export async function registerPaymentWebhook(ctx: StepContext, spec: PaymentWebhookSpec): Promise<void> {
  const token = await ctx.tokenValue(spec.tokenSecretArn);
  await patch(ctx, 'register the payment callback', spec.url, token);
  let held: string | null = null;
  for (let attempt = 1; attempt <= CONFIRM_ATTEMPTS; attempt++) {
    held = await readPaymentWebhook(ctx);
    if (sameUrl(held, spec.url)) {
      ctx.log.info('The bank holds our payment callback', { url: spec.url });
      return;
    }
    if (attempt < CONFIRM_ATTEMPTS && Date.now() + CONFIRM_PAUSE_MS < ctx.deadline) await ctx.sleep(CONFIRM_PAUSE_MS);
    else break;
  }
  throw new Error(
    `The bank accepted PATCH ${PAYMENT_WEBHOOK_PATH} but GET still answers urlCallback ${describeUrl(held)} instead of ${spec.url}: ` +
      'someone may have registered another URL at the same time; deploy again to register ours.',
  );
}

export type PaymentWebhookRemoval = 'cleared' | 'nothing registered' | 'registered by someone else';

/**
 * Delete: clears both fields with "" (spec 2.2), but only while the bank holds our URL; another
 * registration made since is left alone, and nothing registered is fine.
 */
export async function unregisterPaymentWebhook(ctx: StepContext, spec: PaymentWebhookSpec): Promise<PaymentWebhookRemoval> {
  const held = await readPaymentWebhook(ctx);
  if (!held) return 'nothing registered';
  if (!sameUrl(held, spec.url)) {
    ctx.log.warn('The bank holds another payment callback: left alone', { ours: spec.url, held: describeUrl(held) });
    return 'registered by someone else';
  }
  await patch(ctx, 'clear the payment callback', '', '');
  return 'cleared';
}
