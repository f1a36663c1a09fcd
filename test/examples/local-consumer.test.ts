/**
 * The shipped consumer reads an event only when it is one of the receiver's verified events: its
 * source, a detail type the library publishes, and the receiver's account (issue 68, item 4).
 */
import type { EventBridgeEvent } from 'aws-lambda';
import { BankEventDetailType, type BankEventDetail } from '../../contracts/events';

process.env.BANK_WEBHOOKS_EVENT_SOURCE = 'acme.bank-webhooks';
process.env.BANK_WEBHOOKS_ACCOUNT = '0101/02';
const { handler, notOurs } =
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after its environment is set
  require('../../examples/local-consumer/consumer') as typeof import('../../examples/local-consumer/consumer');

const event = (
  overrides: Record<string, unknown> = {},
  account: Record<string, string> = { cooperativa: '0101', posto: '02' },
) =>
  ({
    source: 'acme.bank-webhooks',
    'detail-type': BankEventDetailType.BOLETO_SETTLED,
    detail: { account, state: { status: 'LIQUIDADO' }, subject: { id: 'boleto:1', sequence: 1 }, idempotencyKey: 'k' },
    ...overrides,
  }) as unknown as EventBridgeEvent<string, BankEventDetail>;

it("takes the receiver's own events", () => {
  expect(notOurs(event())).toBeUndefined();
});

it('refuses another source, a detail type the library does not publish, and another account, naming which', async () => {
  expect(notOurs(event({ source: 'cdk-bank-webhooks' }))).toBe('source "cdk-bank-webhooks" is not acme.bank-webhooks');
  expect(notOurs(event({ 'detail-type': 'Boleto Paid Twice' }))).toBe(
    `detail-type "Boleto Paid Twice" is none of the library's`,
  );
  expect(notOurs(event({}, { cooperativa: '0101', posto: '03' }))).toBe("detail.account is not the receiver's");
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  await handler(event({ source: 'someone.else' }));
  expect(log.mock.calls.map(([line]) => JSON.parse(String(line)) as { message: string })).toEqual([
    {
      message: 'Not a verified event of this receiver: ignored',
      reason: 'source "someone.else" is not acme.bank-webhooks',
    },
  ]);
  log.mockRestore();
});
