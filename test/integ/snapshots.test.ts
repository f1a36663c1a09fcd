/**
 * The integ tests' snapshots (test/integ/integ.*.ts.snapshot/): CI synthesizes each integ app and
 * fails when a template differs from its committed snapshot, asset hashes aside. integ-runner
 * itself cannot read this library's cloud assembly yet (its newest release, 2.197.10, bundles a
 * CLI whose schema stops at 53; aws-cdk-lib 2.275 writes 55), so this test holds the snapshots,
 * and the integ apps deploy with our own CLI (docs/development.md, "Integ tests").
 *
 * After a deliberate change: `npm run integ:snapshot` rewrites them; review the diff and commit it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeTemplate, synthesizedTemplates } from '../support/templates';
import { INTEG_APPS } from './apps';

const UPDATE = process.env.UPDATE_INTEG_SNAPSHOTS === '1';

/** The first difference between two snapshot texts, as a line number and both lines, or undefined. */
export function firstDifference(expected: string, actual: string): string | undefined {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `line ${i + 1}: snapshot ${JSON.stringify(a[i] ?? '(end)')}, now ${JSON.stringify(b[i] ?? '(end)')}`;
  }
  return undefined;
}

describe.each(Object.entries(INTEG_APPS))('%s', (file, build) => {
  const dir = join(__dirname, `${file}.snapshot`);
  const now = synthesizedTemplates(build);

  if (UPDATE) {
    it('rewrites its snapshot', () => {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of Object.entries(now)) writeFileSync(join(dir, name), text);
      expect(readdirSync(dir).sort()).toEqual(Object.keys(now).sort());
    });
    return;
  }

  it('has a snapshot of every stack it synthesizes, and none of a stack it no longer has', () => {
    const fix = 'run `npm run integ:snapshot`, review the diff and commit it';
    expect({ file, snapshot: existsSync(dir) ? readdirSync(dir).sort() : `missing: ${fix}` }).toEqual({
      file,
      snapshot: Object.keys(now).sort(),
    });
  });

  it('synthesizes what its snapshot holds, asset hashes aside (a drift fails here)', () => {
    const drifts = Object.entries(now).flatMap(([name, text]) => {
      const path = join(dir, name);
      const difference = existsSync(path) ? firstDifference(readFileSync(path, 'utf8'), text) : 'no snapshot';
      return difference ? [`${name}: ${difference}`] : [];
    });
    expect(drifts).toEqual([]);
  });
});

describe('the drift check', () => {
  it('catches a change of one property, and not a new asset hash', () => {
    const template = {
      Resources: {
        Fn: {
          Type: 'AWS::Lambda::Function',
          Properties: { MemorySize: 512, Code: { S3Key: `${'a'.repeat(64)}.zip` } },
        },
      },
    };
    const snapshot = normalizeTemplate(template);
    expect(
      firstDifference(
        snapshot,
        normalizeTemplate({
          ...template,
          Resources: {
            Fn: {
              ...template.Resources.Fn,
              Properties: { ...template.Resources.Fn.Properties, Code: { S3Key: `${'b'.repeat(64)}.zip` } },
            },
          },
        }),
      ),
    ).toBeUndefined();
    expect(
      firstDifference(
        snapshot,
        normalizeTemplate({
          Resources: {
            Fn: { ...template.Resources.Fn, Properties: { ...template.Resources.Fn.Properties, MemorySize: 1024 } },
          },
        }),
      ),
    ).toMatch(/line \d+: snapshot .*MemorySize.*512.*now .*MemorySize.*1024/);
  });
});
