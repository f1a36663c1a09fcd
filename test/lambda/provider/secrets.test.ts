/**
 * The registration handler writes no secret in a log line, a thrown error or the reason
 * CloudFormation shows, even when the bank echoes every request it refuses (the token request's
 * password and client secret, the PATCH's authorizationCallback, the contract's token), with
 * secrets full of characters that change form when encoded.
 */
import { captureOutput } from '../../support/load-handler';
import { RegistrationHarness } from '../../support/registration-harness';

const credentials = {
  collection: { apiKey: 'key+/="&%-7c1d', username: '543210101', password: 'pass+/="&%word é' },
  payments: { clientId: 'client-id-2', clientSecret: 'sec+/="&%ret é' },
};

let h: RegistrationHarness;

beforeAll(async () => {
  h = await RegistrationHarness.start(
    { credentials },
    { payment: 'pay+/="&%-token-é-0123456789', boleto: 'bol+/="&%-token-é-0123456789' },
  );
});
afterAll(() => h.stop());
afterEach(() => h.control.clearFaults());

it('payment callback: refused token requests and PATCHes echoed back leave no secret in the logs or the failure', async () => {
  // The first GET goes through; every PATCH is refused and echoed.
  await h.control.setFaults({
    echoRequests: true,
    api: [
      { scope: 'token', status: 503, times: 2 },
      { scope: 'registration', status: 503, skip: 1 },
    ],
  });
  const { result: failure, output } = await captureOutput(() =>
    h
      .paymentResource()
      .create(h.paymentProperties({ url: 'https://receiver.example.com/prod/payments' }))
      .then(
        () => undefined,
        (error: Error) => error,
      ),
  );

  expect(failure?.message).toMatch(
    /^PATCH \/v1\/associado\/webhook \(register the payment callback\) failed with HTTP 503: .*requisição recebida: PATCH .*"authorizationCallback":"\*\*\*"/,
  );
  expect(output).toContain('requisição recebida: POST');
  const written = `${output}\n${failure?.message}\n${failure?.stack}`;
  h.expectNoSecret(written);
  // Not even the start of one: secrets are masked before a long message is cut.
  for (const secret of h.secretValues()) expect(written).not.toContain(secret.slice(0, 10));
});

it('boleto contract: a refused contract POST echoed back leaves no token in the logs or the failure', async () => {
  await h.control.setFaults({ echoRequests: true, api: [{ scope: 'contract', status: 503 }] });
  const { result: failure, output } = await captureOutput(() =>
    h
      .contractResource()
      .create(h.contractProperties({ url: 'https://receiver.example.com/prod/boleto', header: 'X-Webhook-Token' }))
      .then(
        () => undefined,
        (error: Error) => error,
      ),
  );

  expect(failure?.message).toMatch(/failed with HTTP 503: .*requisição recebida/);
  h.expectNoSecret(`${output}\n${failure?.message}\n${failure?.stack}`);
});

describe('a token secret the bank would send back unusable', () => {
  let spaced: RegistrationHarness;
  beforeAll(async () => {
    spaced = await RegistrationHarness.start({}, { payment: 'tok-with-a-trailing-newline-0123456789\n' });
  });
  afterAll(() => spaced.stop());

  it('is refused at registration with what to do, and nothing is registered', async () => {
    const failure = await spaced
      .paymentResource()
      .create(spaced.paymentProperties({ url: 'https://receiver.example.com/prod/payments' }))
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(
      /^The token secret arn:.* holds a value with leading or trailing whitespace .* Store the token without surrounding whitespace/,
    );
    expect(await spaced.control.registrations()).toEqual([]);
    spaced.expectNoSecret(`${failure?.message}`);
  });
});
