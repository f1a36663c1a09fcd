/**
 * The registration bundle's payment callback lifecycle against the bank simulator, driven with
 * the properties the PaymentWebhookRegistration construct synthesizes.
 */
import type { SimulatorAccount } from '../../../../simulator/model';
import { SAMPLE_ACCOUNT } from '../../../../simulator/simulator';
import { captureOutput, jsonLogLines } from '../../../support/load-handler';
import { OTHER_ACCOUNT, RegistrationHarness } from '../../../support/registration-harness';

const URL_A = 'https://receiver-a.example.com/prod/payments';
const URL_B = 'https://receiver-b.example.com/prod/payments';
const SOMEONE_ELSE = 'https://someone-else.example.net/hooks/payments';

let h: RegistrationHarness;

beforeAll(async () => {
  h = await RegistrationHarness.start({ accounts: [SAMPLE_ACCOUNT, OTHER_ACCOUNT] });
});
afterAll(() => h.stop());
afterEach(async () => {
  await h.control.clearFaults();
  // Every test starts with nothing registered for either account.
  for (const account of [SAMPLE_ACCOUNT, OTHER_ACCOUNT]) await patchAs(account, '', '');
});

async function registrationOf(account: SimulatorAccount = SAMPLE_ACCOUNT) {
  const found = (await h.control.registrations()).find(
    (r) => r.conta === account.conta && r.cooperativa === account.cooperativa,
  );
  return { urlCallback: found?.urlCallback ?? null, authorizationCallback: found?.authorizationCallback ?? null };
}

/** Someone else (another tool, a person in the portal) changes the registration. */
async function patchAs(account: SimulatorAccount, urlCallback: string, authorizationCallback: string): Promise<void> {
  await h.bankClient(account).call({
    operation: 'test PATCH',
    api: 'payments',
    method: 'PATCH',
    url: `${h.simulator.info.registrationBaseUrl}/v1/associado/webhook`,
    body: { urlCallback, authorizationCallback },
    deadline: Date.now() + 10_000,
  });
}

it('create PATCHes the URL and token, confirms them with GET, and answers no secret', async () => {
  const resource = h.paymentResource();
  const { result: state, output } = await captureOutput(() => resource.create(h.paymentProperties({ url: URL_A })));

  expect(state.physicalResourceId).toBe('payment-webhook/0101/123456');
  expect(state.data).toEqual({ Url: URL_A });
  expect(await registrationOf()).toEqual({ urlCallback: URL_A, authorizationCallback: h.paymentToken });
  expect(await registrationOf(OTHER_ACCOUNT)).toEqual({ urlCallback: null, authorizationCallback: null });
  expect(output).toContain('The bank holds our payment callback');
  h.expectNoSecret(output);
  h.expectNoSecret(JSON.stringify(state));
});

it('update registers the new URL; a rollback (an update back to the old properties) restores the old one', async () => {
  const resource = h.paymentResource();
  await resource.create(h.paymentProperties({ url: URL_A }));
  const { state, replaced } = await resource.update(h.paymentProperties({ url: URL_B }));
  expect(replaced).toBeUndefined();
  expect(state.physicalResourceId).toBe('payment-webhook/0101/123456');
  expect((await registrationOf()).urlCallback).toBe(URL_B);

  // A later resource of the stack failed: CloudFormation rolls this one back with its old properties.
  await resource.update(h.paymentProperties({ url: URL_A }));
  expect(await registrationOf()).toEqual({ urlCallback: URL_A, authorizationCallback: h.paymentToken });
});

it("a new tokenVersion registers the token's new value; during a rotation the pending value is registered", async () => {
  const resource = h.paymentResource();
  await resource.create(h.paymentProperties({ url: URL_A }));
  const original = h.paymentToken;

  // Rotation step 1: the new value is staged as AWSPENDING (the receiver accepts both now).
  h.secrets.putValue(h.paymentTokenArn, 'rotated-token-value-0123456789', ['AWSPENDING']);
  await resource.update(h.paymentProperties({ url: URL_A, tokenVersion: '2' }));
  expect((await registrationOf()).authorizationCallback).toBe('rotated-token-value-0123456789');

  // Step 2: the rotation finishes; the registration already holds the current value.
  h.secrets.finishRotation(h.paymentTokenArn);
  await resource.update(h.paymentProperties({ url: URL_A, tokenVersion: '3' }));
  expect((await registrationOf()).authorizationCallback).toBe('rotated-token-value-0123456789');

  h.secrets.putValue(h.paymentTokenArn, original, ['AWSCURRENT']);
});

it('a change of account replaces the resource: the new account is registered, then the old one cleared', async () => {
  const resource = h.paymentResource();
  await resource.create(h.paymentProperties({ url: URL_A }));
  const { state, replaced } = await resource.update(h.paymentProperties({ url: URL_A, account: OTHER_ACCOUNT }));
  expect(state.physicalResourceId).toBe('payment-webhook/0101/654321');
  expect(replaced?.physicalResourceId).toBe('payment-webhook/0101/123456');
  expect((await registrationOf(OTHER_ACCOUNT)).urlCallback).toBe(URL_A);
  expect((await registrationOf()).urlCallback).toBe(URL_A);

  // CloudFormation's clean-up deletes the replaced resource with its own (old) properties.
  await resource.delete(replaced);
  expect(await registrationOf()).toEqual({ urlCallback: null, authorizationCallback: null });
  expect(await registrationOf(OTHER_ACCOUNT)).toEqual({ urlCallback: URL_A, authorizationCallback: h.paymentToken });
});

it('delete clears both fields while the bank holds our URL', async () => {
  const resource = h.paymentResource();
  await resource.create(h.paymentProperties({ url: URL_A }));
  const { output } = await captureOutput(() => resource.delete());
  expect(await registrationOf()).toEqual({ urlCallback: null, authorizationCallback: null });
  expect(output).toContain('Payment callback: cleared');
});

it('delete leaves a registration someone else made since, and succeeds when nothing is registered', async () => {
  const resource = h.paymentResource();
  await resource.create(h.paymentProperties({ url: URL_A }));
  await patchAs(SAMPLE_ACCOUNT, SOMEONE_ELSE, 'their-own-token');
  const { output } = await captureOutput(() => resource.delete());
  expect(await registrationOf()).toEqual({ urlCallback: SOMEONE_ELSE, authorizationCallback: 'their-own-token' });
  expect(output).toContain('left alone');
  expect(output).not.toContain('their-own-token');

  await patchAs(SAMPLE_ACCOUNT, '', '');
  const again = h.paymentResource();
  await again.create(h.paymentProperties({ url: URL_B }));
  await patchAs(SAMPLE_ACCOUNT, '', '');
  await expect(again.delete()).resolves.toBeUndefined();
  expect(await registrationOf()).toEqual({ urlCallback: null, authorizationCallback: null });
});

it('429s with Retry-After are retried inside the budget, and the registration is made', async () => {
  await h.control.setFaults({ api: [{ scope: 'registration', status: 429, times: 2, retryAfterSeconds: 1 }] });
  const resource = h.paymentResource();
  const { output } = await captureOutput(() => resource.create(h.paymentProperties({ url: URL_A })));
  expect((await registrationOf()).urlCallback).toBe(URL_A);
  const retries = jsonLogLines(output).filter((line) => line.message === 'Retrying a bank call');
  expect(retries.map((line) => [line.status, line.delayMs])).toEqual([
    [429, 1000],
    [429, 1000],
  ]);
});

it("bank down: fails well within the timeout with the operation, the status and the bank's message, and no secret", async () => {
  await h.control.setFaults({ api: [{ scope: 'registration', status: 503 }] });
  const resource = h.paymentResource();
  const { result: failure, output } = await captureOutput(() =>
    resource.create(h.paymentProperties({ url: URL_A })).then(
      () => undefined,
      (error: Error) => error,
    ),
  );

  expect(failure?.message).toBe(
    'GET /v1/associado/webhook (read the payment callback registration) failed with HTTP 503: Serviço temporariamente indisponível. Tente novamente mais tarde. (after 5 attempts)',
  );
  h.expectNoSecret(`${failure?.message}\n${failure?.stack}`);
  // The function's timeout is 120 s and CloudFormation's ServiceTimeout 300 s: the retries' waits,
  // as the handler planned them (not this machine's clock), come nowhere near them.
  const waits = jsonLogLines(output)
    .filter((line) => line.message === 'Retrying a bank call')
    .map((line) => Number(line.delayMs));
  expect(waits).toHaveLength(4);
  expect(waits.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(30_000);
  expect(resource.state).toBeUndefined();
  expect((await registrationOf()).urlCallback).toBeNull();
});

it("a bank that never answers: each call times out, and the failure comes before the function's deadline", async () => {
  await h.control.setFaults({ api: [{ scope: 'registration', delayMs: 4_000 }] });
  const resource = h.paymentResource();
  const failure = await resource.create(h.paymentProperties({ url: URL_A })).then(
    () => undefined,
    (error: Error) => error,
  );
  expect(failure?.message).toMatch(
    /^GET \/v1\/associado\/webhook \(read the payment callback registration\) failed: .*1500 ms.* \(after 5 attempts\)$/,
  );
}, 30_000);

it("a refusal names what the bank said: an x-documento that is not the account holder's", async () => {
  const resource = h.paymentResource();
  const wrongHolder = { ...SAMPLE_ACCOUNT, documento: '11111111000111' };
  await expect(resource.create(h.paymentProperties({ url: URL_A, account: wrongHolder }))).rejects.toThrow(
    'GET /v1/associado/webhook (read the payment callback registration) failed with HTTP 403: DOCUMENTO_INVALIDO: O documento informado não pertence ao titular da conta.',
  );
});

describe('never hijack, never strand', () => {
  it('refuses to replace a callback another party registered, naming it, and changes nothing', async () => {
    await patchAs(SAMPLE_ACCOUNT, SOMEONE_ELSE, 'their-own-token');
    const failure = await h
      .paymentResource()
      .create(h.paymentProperties({ url: URL_A }))
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(
      /^The bank already holds payment callback https:\/\/someone-else\.example\.net\/hooks\/payments for this account, not this stack's https:\/\/receiver-a\.example\.com\/prod\/payments: .*set takeOverExisting: true/,
    );
    expect(await registrationOf()).toEqual({ urlCallback: SOMEONE_ELSE, authorizationCallback: 'their-own-token' });
    expect(failure?.message).not.toContain('their-own-token');
  });

  it('takes it over with takeOverExisting, saying what it replaced and never its token', async () => {
    await patchAs(SAMPLE_ACCOUNT, SOMEONE_ELSE, 'their-own-token');
    const { output } = await captureOutput(() =>
      h.paymentResource().create(h.paymentProperties({ url: URL_A, takeOverExisting: true })),
    );
    expect(await registrationOf()).toEqual({ urlCallback: URL_A, authorizationCallback: h.paymentToken });
    expect(output).toContain('Taking over the payment callback another party registered');
    expect(output).toContain('someone-else.example.net');
    expect(output).not.toContain('their-own-token');
  });

  it('a create whose confirmation fails puts back what the bank held before, in the same invocation, and fails', async () => {
    await patchAs(SAMPLE_ACCOUNT, SOMEONE_ELSE, 'their-own-token');
    // The first GET and the PATCH go through; every confirming GET fails.
    await h.control.setFaults({ api: [{ scope: 'registration', status: 503, skip: 2, times: 5 }] });
    const { result: failure, output } = await captureOutput(() =>
      h
        .paymentResource()
        .create(h.paymentProperties({ url: URL_A, takeOverExisting: true }))
        .then(
          () => undefined,
          (error: Error) => error,
        ),
    );
    expect(failure?.message).toMatch(
      /^GET \/v1\/associado\/webhook \(read the payment callback registration\) failed with HTTP 503: .*; what the bank held before \(https:\/\/someone-else\.example\.net\/hooks\/payments\) was put back$/,
    );
    expect(await registrationOf()).toEqual({ urlCallback: SOMEONE_ELSE, authorizationCallback: 'their-own-token' });
    expect(output).not.toContain('their-own-token');
    h.expectNoSecret(`${output}\n${failure?.message}`);
  });

  it('a create whose PATCH the bank carried out but never answered puts back what the bank held before, and fails', async () => {
    await patchAs(SAMPLE_ACCOUNT, SOMEONE_ELSE, 'their-own-token');
    // The first GET goes through; the PATCH is made but its answer lost (a gateway's 502), and every try after it fails.
    await h.control.setFaults({
      api: [
        { scope: 'registration', skip: 1, times: 1, status: 502, afterApplying: true },
        { scope: 'registration', status: 503, times: 4 },
      ],
    });
    const { result: failure, output } = await captureOutput(() =>
      h
        .paymentResource()
        .create(h.paymentProperties({ url: URL_A, takeOverExisting: true }))
        .then(
          () => undefined,
          (error: Error) => error,
        ),
    );
    expect(failure?.message).toMatch(
      /^PATCH \/v1\/associado\/webhook \(register the payment callback\) failed with HTTP 503: .*; what the bank held before \(https:\/\/someone-else\.example\.net\/hooks\/payments\) was put back$/,
    );
    expect(await registrationOf()).toEqual({ urlCallback: SOMEONE_ELSE, authorizationCallback: 'their-own-token' });
    expect(output).not.toContain('their-own-token');
    h.expectNoSecret(`${output}\n${failure?.message}`);
  });

  it('a create whose confirming reads lag (the PATCH applied, GET still answers the value from before) puts back what the bank held, and fails', async () => {
    await patchAs(SAMPLE_ACCOUNT, SOMEONE_ELSE, 'their-own-token');
    await h.control.setFaults({ staleRegistrationReads: 10 });
    const { result: failure, output } = await captureOutput(() =>
      h
        .paymentResource()
        .create(h.paymentProperties({ url: URL_A, takeOverExisting: true }))
        .then(
          () => undefined,
          (error: Error) => error,
        ),
    );
    expect(failure?.message).toBe(
      'The bank accepted PATCH /v1/associado/webhook but GET still answers what it held before (https://someone-else.example.net/hooks/payments) after 3 reads: the change could not be confirmed; deploy again; ' +
        'what the bank held before (https://someone-else.example.net/hooks/payments) was put back',
    );
    expect(await registrationOf()).toEqual({ urlCallback: SOMEONE_ELSE, authorizationCallback: 'their-own-token' });
    h.expectNoSecret(`${output}\n${failure?.message}`);
  });

  it('and with nothing registered before, clears ours: the bank never points at a stack being rolled back', async () => {
    await h.control.setFaults({ staleRegistrationReads: 10 });
    const failure = await h
      .paymentResource()
      .create(h.paymentProperties({ url: URL_A }))
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(
      /GET still answers what it held before \(nothing\) after 3 reads.*; what the bank held before \(nothing\) was put back$/,
    );
    expect(await registrationOf()).toEqual({ urlCallback: null, authorizationCallback: null });
  });

  it('an update to a new token whose reads lag puts the old token back (the URL alone does not confirm it)', async () => {
    const resource = h.paymentResource();
    await resource.create(h.paymentProperties({ url: URL_A }));
    const oldToken = h.paymentToken;
    h.secrets.putValue(h.paymentTokenArn, 'a-new-callback-token-0123456789', ['AWSCURRENT']);
    await h.control.setFaults({ staleRegistrationReads: 10 });
    try {
      const failure = await resource.update(h.paymentProperties({ url: URL_A, tokenVersion: '2' })).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure?.message).toMatch(
        /GET still answers what it held before \(https:\/\/receiver-a\.example\.com\/prod\/payments\) after 3 reads/,
      );
      expect(await registrationOf()).toEqual({ urlCallback: URL_A, authorizationCallback: oldToken });
    } finally {
      h.secrets.putValue(h.paymentTokenArn, oldToken, ['AWSCURRENT']);
    }
  });

  it('a PATCH the bank refused changes nothing, so nothing is put back', async () => {
    await h.control.setFaults({ api: [{ scope: 'registration', skip: 1, status: 503, times: 5 }] });
    const failure = await h
      .paymentResource()
      .create(h.paymentProperties({ url: URL_A }))
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(
      /^PATCH \/v1\/associado\/webhook \(register the payment callback\) failed with HTTP 503: [^;]*$/,
    );
    expect(await registrationOf()).toEqual({ urlCallback: null, authorizationCallback: null });
  });

  it('and clears ours when nothing was registered before', async () => {
    await h.control.setFaults({ api: [{ scope: 'registration', status: 503, skip: 2, times: 5 }] });
    const failure = await h
      .paymentResource()
      .create(h.paymentProperties({ url: URL_A }))
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(/; what the bank held before \(nothing\) was put back$/);
    expect(await registrationOf()).toEqual({ urlCallback: null, authorizationCallback: null });
  });
});
