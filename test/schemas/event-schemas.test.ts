/** The JSON Schemas the package ships are generated from the event contract, and mean what they say. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BankEventDetailType } from '../../contracts/events';
import { detailProblems } from '../../tools/event-schemas';
import { generateEventSchemas, SCHEMA_DIR } from '../../tools/schemas';
import { processBatch } from '../../lambda/processor/batch';
import { boletoEvent, contextWith, fakeDeps, sqsRecord } from '../support/processor-records';

it('ships one schema per detail type, each exactly what `npm run schemas` generates from the contract', () => {
  const generated = generateEventSchemas();
  expect([...generated.keys()].sort()).toEqual(readdirSync(SCHEMA_DIR).sort());
  expect(generated.size).toBe(Object.values(BankEventDetailType).length);
  for (const [file, text] of generated) {
    // If this fails, run `npm run schemas` and commit schemas/events/.
    expect({ file, text: readFileSync(join(SCHEMA_DIR, file), 'utf8') }).toEqual({ file, text });
  }
}, 60_000);

describe('a published detail', () => {
  const published = async () => {
    const f = fakeDeps();
    f.bank.settle('1001');
    await processBatch({ Records: [sqsRecord('boleto', boletoEvent('1001'))] }, contextWith(f.clock), f.deps);
    return f.published[0].detail;
  };

  it('validates as published', async () => {
    expect(detailProblems(BankEventDetailType.BOLETO_SETTLED, await published())).toEqual([]);
  });

  it.each<[string, (d: Record<string, any>) => void, RegExp]>([
    ['a field the contract does not have', (d) => { d.extra = 1; }, /must NOT have additional properties \(extra\)/],
    ['another version', (d) => { d.version = '1'; }, /\/version must match pattern/],
    ['an unknown trigger', (d) => { d.trigger = 'cron'; }, /\/trigger must be equal to one of the allowed values/],
    ['amounts as text', (d) => { d.settlement.amount.cents = '15025'; }, /\/settlement\/amount\/cents must be number/],
    ['a settled boleto without its settlement', (d) => { delete d.settlement; }, /\(detail\) must have required property 'settlement'/],
    ['no subject sequence', (d) => { delete d.subject.sequence; }, /\/subject must have required property 'sequence'/],
  ])('fails with %s', async (_name, change, expected) => {
    const detail = await published();
    change(detail);
    expect(detailProblems(BankEventDetailType.BOLETO_SETTLED, detail).join('\n')).toMatch(expected);
  });
});
