/**
 * No secret in any log line, even when the bank echoes every request it refuses (token requests
 * with the password or client secret, query calls with the bearer token and x-api-key), with
 * credentials full of characters that change form when encoded.
 */
import { ProcessorHarness } from '../../support/processor-harness';
import { captureOutput } from '../../support/load-handler';
import { expectNoSecretIn } from '../../support/registration-harness';
import { BankEventDetailType as T } from '../../../contracts/events';

const credentials = {
  collection: { apiKey: 'key+/="&%-0f3a', username: '543210101', password: 'pass+/="&%word é' },
  payments: { clientId: 'client-id-1', clientSecret: 'sec+/="&%ret é' },
};

let h: ProcessorHarness;

beforeAll(async () => {
  h = await ProcessorHarness.start({ simulator: { credentials } });
});

afterAll(async () => {
  await h?.stop();
});

it('logs the retries of refused token requests and queries without any credential or token, in any encoding', async () => {
  const boleto = await h.control.createBoleto({ valor: '10.00' });
  const boletoChange = await h.control.settleBoleto(boleto.nossoNumero);
  const pix = await h.control.createPayment({ tipo: 'pix', valor: '7.00' });
  await h.control.setFaults({
    echoRequests: true,
    api: [
      { scope: 'token', status: 503, times: 2 },
      { scope: 'query', status: 503, times: 4 },
    ],
  });
  await h.enqueue('boleto', boletoChange.notification);
  await h.enqueue('payments', pix.payment);
  const { output } = await captureOutput(() => h.drain());

  expect(h.events.ofType(T.BOLETO_SETTLED)).toHaveLength(1);
  expect(h.events.ofType(T.PAYMENT_STATUS_VERIFIED)).toHaveLength(1);
  // The bank did echo the requests, and the echoes were logged...
  expect(output).toContain('requisição recebida');
  expect(output).toMatch(/grant_type=(password|client_credentials)/);
  // ...with no secret in them, nor any bearer token.
  expectNoSecretIn(output, [
    credentials.collection.apiKey,
    credentials.collection.password,
    credentials.payments.clientSecret,
  ]);
  expect(output).not.toMatch(/Bearer [A-Za-z0-9]/i);
  expect(output).toContain('password=***');
});
