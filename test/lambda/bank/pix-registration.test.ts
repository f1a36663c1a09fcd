/**
 * A Pix key's webhook through the deploy-time provider's lifecycle (issue 52, item 2): PUT with our
 * URL and confirmed by GET; another party's URL left alone unless taken over; removed on delete
 * only while it is ours; the exact URL the provider will call (`{url}/pix`, never `//pix`).
 */
import { RecurringWebhookKind } from '../../../contracts/pix-recurring';
import { RegistrationDrift } from '../../../contracts/reconciliation';
import { RegistrationProperty, RegistrationResourceType } from '../../../contracts/registration';
import { combinedRegistrations } from '../../../lambda/bank/family';
import { cooperativeRegistrations } from '../../../lambda/bank/cooperative/registration/kinds';
import { pixRegistrations, type PixWebhookCaller } from '../../../lambda/bank/pix';
import { type CustomResourceEvent, onEvent } from '../../../lambda/provider/lifecycle';
import { MemoryAppliedRegistrations } from '../../support/memory-records';

const CONNECTION = {
  baseUrl: 'https://api-pix.provider.example',
  tokenUrl: 'https://api-pix.provider.example/oauth/token',
  credentialsSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pix-AbCdEf',
};
const OURS = 'https://pix-webhooks.example.com';
const THEIRS = 'https://someone-else.example.net/hooks?secret=abc';
const KEY = 'financeiro@example.com.br';
const RECORD = '/cdk-bank-webhooks/applied/Stack/PixKey';

/** The provider's webhooks by key; the URL each callback then goes to. */
class FakeWebhooks implements PixWebhookCaller {
  readonly held = new Map<string, string>();
  readonly calls: string[] = [];
  async putWebhook(chave: string, url: string) {
    this.calls.push(`PUT ${chave}`);
    this.held.set(chave, url);
  }
  async getWebhook(chave: string) {
    this.calls.push(`GET ${chave}`);
    const url = this.held.get(chave);
    return url ? { webhookUrl: url } : undefined;
  }
  async deleteWebhook(chave: string) {
    this.calls.push(`DELETE ${chave}`);
    return this.held.delete(chave);
  }
  // The account's webhooks (Pix Automático), held under `webhookrec` and `webhookcobr`.
  async putAccountWebhook(kind: RecurringWebhookKind, url: string) {
    return this.putWebhook(`webhook${kind}`, url);
  }
  async getAccountWebhook(kind: RecurringWebhookKind) {
    return this.getWebhook(`webhook${kind}`);
  }
  async deleteAccountWebhook(kind: RecurringWebhookKind) {
    return this.deleteWebhook(`webhook${kind}`);
  }
  callbackUrl(chave: string) {
    return `${this.held.get(chave)}/pix`;
  }
}

function world() {
  const provider = new FakeWebhooks();
  const logs: string[] = [];
  const records = new MemoryAppliedRegistrations();
  const deps = {
    registrations: combinedRegistrations(
      cooperativeRegistrations(() => {
        throw new Error('no bank call expected');
      }),
      pixRegistrations(() => provider),
    ),
    token: () => Promise.reject(new Error('a Pix key has no token')),
    records,
    log: { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) },
    deadline: Date.now() + 10_000,
    sleep: () => Promise.resolve(),
  };
  return { provider, logs, records, deps };
}

const properties = (spec: Record<string, unknown> = {}) => ({
  [RegistrationProperty.PIX]: JSON.stringify(CONNECTION),
  [RegistrationProperty.SPEC]: JSON.stringify({ chave: KEY, url: OURS, ...spec }),
  [RegistrationProperty.APPLIED_RECORD]: RECORD,
});
const event = (
  RequestType: CustomResourceEvent['RequestType'],
  ResourceProperties: Record<string, unknown>,
  extra: Partial<CustomResourceEvent> = {},
): CustomResourceEvent => ({
  RequestType,
  ResourceType: RegistrationResourceType.PIX_KEY_WEBHOOK,
  ResourceProperties,
  LogicalResourceId: 'PixKey',
  RequestId: 'req-1',
  StackId: 'arn:aws:cloudformation:sa-east-1:111111111111:stack/Stack/1',
  ...extra,
});

it('registers our URL for the key, confirmed by GET, records it, and the provider then calls {url}/pix', async () => {
  const w = world();
  const result = await onEvent(event('Create', properties()), w.deps);
  expect(result).toEqual({ PhysicalResourceId: `pix-webhook/${encodeURIComponent(KEY)}`, Data: { Url: OURS } });
  expect(w.provider.calls).toEqual([`GET ${KEY}`, `PUT ${KEY}`, `GET ${KEY}`]);
  expect(w.provider.callbackUrl(KEY)).toBe('https://pix-webhooks.example.com/pix');
  expect((await w.records.read(RECORD))?.spec).toEqual({ chave: KEY, url: OURS });
});

it("leaves another party's URL alone, naming it without its query, unless the stack takes it over", async () => {
  const w = world();
  w.provider.held.set(KEY, THEIRS);
  await expect(onEvent(event('Create', properties()), w.deps)).rejects.toThrow(
    `the provider holds another party's webhook for the key ${KEY} (https://someone-else.example.net/hooks?…): left alone. Set takeOverExisting to replace it`,
  );
  expect(w.provider.held.get(KEY)).toBe(THEIRS);
  await onEvent(event('Create', properties({ takeOverExisting: true })), w.deps);
  expect(w.provider.held.get(KEY)).toBe(OURS);
});

it('replaces its own previous URL on an update, and removes the webhook on delete only while it is ours', async () => {
  const w = world();
  w.provider.held.set(KEY, 'https://old-pix.example.com');
  await onEvent(
    event('Update', properties(), {
      PhysicalResourceId: `pix-webhook/${encodeURIComponent(KEY)}`,
      OldResourceProperties: properties({ url: 'https://old-pix.example.com' }),
    }),
    w.deps,
  );
  expect(w.provider.held.get(KEY)).toBe(OURS);
  w.provider.held.set(KEY, THEIRS);
  await onEvent(
    event('Delete', properties(), { PhysicalResourceId: `pix-webhook/${encodeURIComponent(KEY)}` }),
    w.deps,
  );
  expect(w.provider.held.get(KEY)).toBe(THEIRS);
  expect(w.logs).toContain(
    `Pix key webhook: registered by someone else (https://someone-else.example.net/hooks?…), left alone (key ${KEY})`,
  );
  w.provider.held.set(KEY, OURS);
  await onEvent(
    event('Delete', properties(), { PhysicalResourceId: `pix-webhook/${encodeURIComponent(KEY)}` }),
    w.deps,
  );
  expect(w.provider.held.has(KEY)).toBe(false);
});

it("refuses properties that are not the construct's: a key not in its normal form, a URL ending in a slash", async () => {
  const w = world();
  await expect(onEvent(event('Create', properties({ chave: 'Financeiro@Example.com.br' })), w.deps)).rejects.toThrow(
    /chave must be a Pix key in its normal form/,
  );
  await expect(onEvent(event('Create', properties({ url: `${OURS}/` })), w.deps)).rejects.toThrow(
    /url must be an https URL without a trailing slash/,
  );
  expect(w.provider.calls).toEqual([]);
});

it('compares what the provider holds with what the stack deployed (for the watch)', async () => {
  const w = world();
  const kinds = pixRegistrations(() => w.provider, CONNECTION);
  const steps = {
    deadline: Date.now() + 1_000,
    tokenValue: () => Promise.reject(new Error('none')),
    log: w.deps.log,
    sleep: () => Promise.resolve(),
  };
  const registration = kinds.fromDeployed({ chave: KEY, url: OURS });
  expect((await registration.compare(steps, { accepted: [], stale: false })).drift).toEqual([
    RegistrationDrift.MISSING,
  ]);
  w.provider.held.set(KEY, THEIRS);
  expect(await registration.compare(steps, { accepted: [], stale: false })).toEqual({
    drift: [RegistrationDrift.OTHER_URL],
    held: 'https://someone-else.example.net/hooks?…',
  });
  await registration.repair(steps);
  expect((await registration.compare(steps, { accepted: [], stale: false })).drift).toEqual([]);
});

describe("the account's Pix Automático webhooks (webhookrec, webhookcobr): the same rules as a key's", () => {
  const account = (kind: string, spec: Record<string, unknown> = {}) => ({
    ...properties(),
    [RegistrationProperty.SPEC]: JSON.stringify({ accountWebhook: kind, url: OURS, ...spec }),
  });
  const accountEvent = (
    type: CustomResourceEvent['RequestType'],
    props: Record<string, unknown>,
    extra: Partial<CustomResourceEvent> = {},
  ) => event(type, props, { ResourceType: RegistrationResourceType.PIX_ACCOUNT_WEBHOOK, ...extra });

  it.each(['rec', 'cobr'])(
    'registers our URL as webhook%s, confirmed by GET, recorded; the key webhooks untouched',
    async (kind) => {
      const w = world();
      const result = await onEvent(accountEvent('Create', account(kind)), w.deps);
      expect(result).toEqual({ PhysicalResourceId: `pix-account-webhook/${kind}`, Data: { Url: OURS } });
      expect(w.provider.calls).toEqual([`GET webhook${kind}`, `PUT webhook${kind}`, `GET webhook${kind}`]);
      expect([...w.provider.held.keys()]).toEqual([`webhook${kind}`]);
      expect((await w.records.read(RECORD))?.spec).toEqual({ accountWebhook: kind, url: OURS });
    },
  );

  it("leaves another party's webhookrec alone unless taken over, and removes ours only while it is ours", async () => {
    const w = world();
    w.provider.held.set('webhookrec', THEIRS);
    await expect(onEvent(accountEvent('Create', account('rec')), w.deps)).rejects.toThrow(
      "the provider holds another party's webhook for the account's webhookrec (https://someone-else.example.net/hooks?…): left alone. Set takeOverExisting to replace it",
    );
    expect(w.provider.held.get('webhookrec')).toBe(THEIRS);
    await onEvent(accountEvent('Create', account('rec', { takeOverExisting: true })), w.deps);
    expect(w.provider.held.get('webhookrec')).toBe(OURS);
    w.provider.held.set('webhookrec', THEIRS);
    await onEvent(accountEvent('Delete', account('rec'), { PhysicalResourceId: 'pix-account-webhook/rec' }), w.deps);
    expect(w.provider.held.get('webhookrec')).toBe(THEIRS);
    expect(w.logs).toContain(
      "Pix webhookrec: registered by someone else (https://someone-else.example.net/hooks?…), left alone (the account's webhookrec)",
    );
    w.provider.held.set('webhookrec', OURS);
    await onEvent(accountEvent('Delete', account('rec'), { PhysicalResourceId: 'pix-account-webhook/rec' }), w.deps);
    expect(w.provider.held.has('webhookrec')).toBe(false);
  });

  it('refuses an account webhook that is neither rec nor cobr, and a key spec under the account type, before any call', async () => {
    const w = world();
    await expect(onEvent(accountEvent('Create', account('pix')), w.deps)).rejects.toThrow(
      /accountWebhook must be rec or cobr/,
    );
    await expect(onEvent(accountEvent('Create', properties()), w.deps)).rejects.toThrow(/accountWebhook/);
    expect(w.provider.calls).toEqual([]);
  });

  it('compares and repairs what the stack deployed (for the watch)', async () => {
    const w = world();
    const steps = {
      deadline: Date.now() + 1_000,
      tokenValue: () => Promise.reject(new Error('none')),
      log: w.deps.log,
      sleep: () => Promise.resolve(),
    };
    const registration = pixRegistrations(() => w.provider, CONNECTION).fromDeployed({
      accountWebhook: 'cobr',
      url: OURS,
    });
    expect((await registration.compare(steps, { accepted: [], stale: false })).drift).toEqual([
      RegistrationDrift.MISSING,
    ]);
    await registration.repair(steps);
    expect(w.provider.held.get('webhookcobr')).toBe(OURS);
    expect((await registration.compare(steps, { accepted: [], stale: false })).drift).toEqual([]);
  });
});
