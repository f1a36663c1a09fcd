/**
 * The watch reads the Pix keys the stack deployed from the stack's own output (one DescribeStacks,
 * nobody writes it but a stack update): one that cannot be read fails the watch, naming it, and
 * never watches an empty list in silence.
 */
import { watchRegistrations, type WatchDeps } from '../../../lambda/reconciliation/watch';
import { pixRegistrations } from '../../../lambda/bank/pix';
import { MemoryWatchStates } from '../../support/memory-records';

const URL = 'https://pix-webhooks.example.com';
const RECORD = '/cdk-bank-webhooks/applied/Stack/PixKey';
const CONNECTION = {
  baseUrl: 'https://api-pix.example',
  tokenUrl: 'https://api-pix.example/oauth/token',
  credentialsSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pix',
};

function deps(
  output: string | undefined,
  held: Map<string, string>,
  record: { resourceType: string; subject: string; spec: Record<string, unknown> } = {
    resourceType: 'Custom::BankPixKeyWebhook',
    subject: 'pix-webhook/x',
    spec: { chave: 'pix@example.com', url: URL },
  },
): WatchDeps {
  return {
    settings: {
      contracts: [],
      pixKeysOutput: 'PixKeysWatched',
      repair: false,
      stackId: 'arn:aws:cloudformation:sa-east-1:111111111111:stack/Stack/1',
    },
    registrations: pixRegistrations(
      () => ({
        putWebhook: async (chave, url) => {
          held.set(chave, url);
        },
        getWebhook: async (chave) => (held.has(chave) ? { webhookUrl: held.get(chave)! } : undefined),
        deleteWebhook: async (chave) => held.delete(chave),
        putAccountWebhook: async (kind, url) => {
          held.set(`webhook${kind}`, url);
        },
        getAccountWebhook: async (kind) =>
          held.has(`webhook${kind}`) ? { webhookUrl: held.get(`webhook${kind}`)! } : undefined,
        deleteAccountWebhook: async (kind) => held.delete(`webhook${kind}`),
      }),
      CONNECTION,
    ),
    steps: {
      deadline: Date.now() + 5_000,
      tokenValue: () => Promise.reject(new Error('none')),
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      sleep: () => Promise.resolve(),
    },
    readRecord: async () =>
      ({
        format: 1,
        appliedAt: '2026-11-27T00:00:00Z',
        requestId: 'r',
        ...record,
        stackId: 'arn:aws:cloudformation:sa-east-1:111111111111:stack/Stack/1',
      }) as never,
    tokens: { version: async () => undefined, accepted: async () => [] },
    states: new MemoryWatchStates(),
    stackStatus: async () => 'UPDATE_COMPLETE',
    stackOutput: async () => output,
    count: () => undefined,
  };
}

it('watches each key the output names: in sync, and drift when the provider dropped one', async () => {
  const held = new Map([['pix@example.com', URL]]);
  const output = JSON.stringify({ url: URL, keys: [['pix@example.com', RECORD]] });
  expect(await watchRegistrations(deps(output, held))).toEqual([
    { registration: 'pix pix@example.com', state: 'in-sync', drift: [], repaired: false },
  ]);
  held.clear();
  expect(await watchRegistrations(deps(output, held))).toEqual([
    expect.objectContaining({ registration: 'pix pix@example.com', state: 'drift', drift: ['missing'] }),
  ]);
});

it("watches the account's Pix Automático webhooks the output names, and repairs one only to what the stack deployed", async () => {
  const held = new Map([['webhookrec', URL]]);
  const output = JSON.stringify({ url: URL, keys: [], accounts: [['rec', RECORD]] });
  const record = {
    resourceType: 'Custom::BankPixAccountWebhook',
    subject: 'pix-account-webhook/rec',
    spec: { accountWebhook: 'rec', url: URL },
  };
  expect(await watchRegistrations(deps(output, held, record))).toEqual([
    { registration: 'pix webhookrec', state: 'in-sync', drift: [], repaired: false },
  ]);
  held.set('webhookrec', 'https://someone-else.example.net/hooks');
  expect(await watchRegistrations(deps(output, held, record))).toEqual([
    expect.objectContaining({ registration: 'pix webhookrec', state: 'drift', drift: ['other-url'] }),
  ]);
  expect(held.get('webhookrec')).toBe('https://someone-else.example.net/hooks');
});

it.each([
  [
    JSON.stringify({ url: URL, keys: [], accounts: [['pix', RECORD]] }),
    'is not a list of Pix webhooks with their records',
  ],
  [
    JSON.stringify({ url: URL, keys: [], accounts: [['cobr', '/somewhere/else']] }),
    'is not a list of Pix webhooks with their records',
  ],
  [undefined, 'is missing or not JSON'],
  ['not json', 'is missing or not JSON'],
  [
    JSON.stringify({ url: URL, keys: [['PIX@EXAMPLE.COM', RECORD]] }),
    'is not a list of Pix webhooks with their records',
  ],
  [
    JSON.stringify({ url: URL, keys: [['pix@example.com', '/somewhere/else']] }),
    'is not a list of Pix webhooks with their records',
  ],
])('fails, naming the output, when it is %j', async (output, why) => {
  await expect(watchRegistrations(deps(output, new Map()))).rejects.toThrow(
    `The stack's output PixKeysWatched${why.startsWith('is missing') ? ' (the Pix keys it deployed)' : ''} ${why}`,
  );
});
