/** The local event pattern matcher agrees with EventBridge's documented semantics on the filters it supports. */
import { matchesEventPattern } from '../../../tools/local-aws/event-pattern';

const event = {
  source: 'cdk-bank-webhooks',
  'detail-type': 'Boleto Settled',
  detail: {
    account: { cooperativa: '0101', codigoBeneficiario: '54321' },
    state: { statusClass: 'settled', amount: { cents: 100 } },
    tags: ['a', 'b'],
  },
};

it.each<[string, Record<string, unknown>, boolean]>([
  ['exact values', { source: ['cdk-bank-webhooks'], 'detail-type': ['Boleto Settled', 'Boleto Rejected'] }, true],
  ['another value', { source: ['other'] }, false],
  ['nested objects', { detail: { state: { statusClass: ['settled'] } } }, true],
  ['a field the event lacks', { detail: { state: { missing: ['x'] } } }, false],
  [
    '$or on either account field',
    { detail: { account: { cooperativa: ['0101'], $or: [{ conta: ['1'] }, { codigoBeneficiario: ['54321'] }] } } },
    true,
  ],
  [
    '$or with no alternative matching',
    { detail: { account: { $or: [{ conta: ['1'] }, { codigoBeneficiario: ['99999'] }] } } },
    false,
  ],
  ['prefix', { 'detail-type': [{ prefix: 'Boleto' }] }, true],
  ['exists: false', { detail: { reverses: [{ exists: false }] } }, true],
  ['anything-but', { detail: { state: { statusClass: [{ 'anything-but': ['open'] }] } } }, true],
  ['numeric range', { detail: { state: { amount: { cents: [{ numeric: ['>', 50, '<=', 100] }] } } } }, true],
  ['a value in an array field', { detail: { tags: ['b'] } }, true],
])('%s', (_name, pattern, expected) => {
  expect(matchesEventPattern(pattern, event)).toBe(expected);
});
