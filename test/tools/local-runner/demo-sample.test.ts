/**
 * docs/local-runner.md's sample summary cannot drift (issue 53, item 7): the demo CI runs compares
 * what it printed with the docs' block and fails on a difference, naming the first line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docSampleDrift } from '../../../tools/local-runner/demo-report';

const markdown = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'local-runner.md'), 'utf8');
const sample = /```text\n(Summary\n[\s\S]*?)```/.exec(markdown)![1].replace(/\n$/, '').split('\n');

it("finds no drift when the run printed the docs' sample, and names the first line that differs otherwise", () => {
  expect(sample[0]).toBe('Summary');
  expect(docSampleDrift(sample, markdown)).toBeUndefined();
  const changed = sample.map((line) => line.replace(/Verified events(\s+)30/, 'Verified events$131'));
  expect(docSampleDrift(changed, markdown)).toMatch(
    /^line \d+: the docs say ".*Verified events\s+30", the run ".*Verified events\s+31"$/,
  );
  expect(docSampleDrift([...sample, '  one more line'], markdown)).toMatch(/the docs say "\(nothing\)"/);
  expect(docSampleDrift(sample, '# no sample here')).toBe('it has no ```text block starting with Summary');
});
