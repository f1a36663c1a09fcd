/**
 * The audit's rule for a Pix callback naming another key: the callback decides nothing, so the Pix
 * may be published (by the sweep) where the provider's answers show it under one of the
 * receiver's keys, or under none on the account's receiver for keyless Pix; published under
 * another key, it is a Pix published that was not ours.
 */
import { checkRecord, Invariant, Outcome } from '../../cli/audit/invariants';
import { BankEventDetailType } from '../../contracts/events';
import { PIX_ROUTE } from '../../contracts/receiver';

const E2E = 'E01181521202611021800000000000001';
const callback = {
  requestId: 'req-1',
  route: PIX_ROUTE,
  body: Buffer.from(
    JSON.stringify({
      pix: [
        {
          endToEndId: E2E,
          txid: 'QR1',
          valor: '25.00',
          horario: '2026-11-02T18:00:00.000Z',
          chave: 'outra@example.com',
        },
      ],
    }),
  ),
};
const received = (chave?: string) => ({
  id: 'ev-1',
  detailType: BankEventDetailType.PIX_RECEIVED,
  detail: {
    idempotencyKey: `pix:${E2E}#1`,
    subject: { id: `pix:${E2E}`, sequence: 1, endToEndId: E2E },
    state: { status: 'RECEBIDO', statusClass: 'settled' },
    pix: { endToEndId: E2E, ...(chave ? { chave } : {}) },
  },
});
const audit = (events: ReturnType<typeof received>[]) =>
  checkRecord({
    notifications: [callback],
    events,
    quarantined: [],
    pixKeys: ['loja@example.com'],
    republishing: false,
  });

it("counts a callback of another key's Pix, never published, as foreign", () => {
  const result = audit([]);
  expect(result.violations).toEqual([]);
  expect(result.outcomes[Outcome.FOREIGN]).toBe(1);
});

it('accepts it published where the provider showed no key (the keyless owner) or one of ours (the callback lied)', () => {
  for (const chave of [undefined, 'loja@example.com']) {
    const result = audit([received(chave)]);
    expect(result.violations).toEqual([]);
    expect(result.outcomes[Outcome.VERIFIED]).toBe(1);
  }
});

it('refuses it published under another key', () => {
  expect(audit([received('outra@example.com')]).violations).toEqual([
    {
      invariant: Invariant.UNVERIFIED,
      detail: `pix:${E2E} names a Pix key that is not the receiver's and was published with the provider showing it under another key`,
    },
  ]);
});
