/**
 * What Construct Hub and the package registries read: the `awscdk` keyword (how Construct Hub
 * finds a CDK construct library), the jsii targets of every language it lists, the stability,
 * and a CHANGELOG that tells the same changes as docs/changes.md, in the same order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  keywords: string[];
  license: string;
  author: { name: string };
  repository: { url: string };
  homepage: string;
  stability: string;
  files: string[];
  jsii: { targets: Record<string, Record<string, unknown>> };
};

/** The changes docs/changes.md tells: each bullet's bold title, and whether its first parenthesis says it is breaking. */
export function changesOf(markdown: string): Array<{ title: string; breaking: boolean }> {
  return [...markdown.matchAll(/^- \*\*(.+?)\*\*([\s\S]*?)(?=^- \*\*|(?![\s\S]))/gm)].map(([, title, rest]) => {
    const parenthesis = /^\s*\(([^)]*)\)/.exec(rest);
    return { title, breaking: !!parenthesis && parenthesis[1].includes('breaking') };
  });
}

/** The changes CHANGELOG.md lists under one version's heading. */
export function changelogOf(
  markdown: string,
  version: string,
): Array<{ title: string; breaking: boolean }> | undefined {
  const sections = markdown.split(/^## /m).slice(1);
  const section = sections.find((s) => s.startsWith(`${version} `) || s.startsWith(`${version}\n`));
  if (!section) return undefined;
  return [...section.matchAll(/^- (.+)$/gm)].map(([, line]) => {
    const breaking = line.endsWith(' (breaking)');
    return { title: breaking ? line.slice(0, -' (breaking)'.length) : line, breaking };
  });
}

describe('the package as Construct Hub reads it', () => {
  it('carries the awscdk keyword, a license, an author, the repository and a stability', () => {
    expect(pkg.keywords).toEqual(expect.arrayContaining(['awscdk', 'aws-cdk', 'cdk']));
    expect(pkg.license).toBe('Apache-2.0');
    expect(pkg.author.name).toBeTruthy();
    expect(pkg.repository.url).toMatch(/^https:\/\/github\.com\/.+\.git$/);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.stability).toBe('experimental');
  });

  it('names a package for Python, Java and .NET, and the built assembly carries them', () => {
    expect(pkg.jsii.targets).toEqual({
      python: { distName: expect.any(String), module: expect.stringMatching(/^[a-z_]+$/) },
      java: {
        package: expect.stringMatching(/^[a-z][a-z.]+$/),
        maven: { groupId: expect.any(String), artifactId: expect.any(String) },
      },
      dotnet: { namespace: expect.stringMatching(/^[A-Z]\w+$/), packageId: expect.any(String) },
    });
    const assembly = JSON.parse(readFileSync(join(ROOT, '.jsii'), 'utf8')) as {
      targets: Record<string, unknown>;
      docs?: { stability?: string };
      keywords?: string[];
    };
    expect(assembly.targets).toEqual(expect.objectContaining(pkg.jsii.targets));
    expect(assembly.docs?.stability).toBe(pkg.stability);
    expect(assembly.keywords).toContain('awscdk');
  });

  it('publishes a CHANGELOG listing, under this version, the changes docs/changes.md tells, in its order, breaking ones marked', () => {
    expect(pkg.files).toContain('CHANGELOG.md');
    const changes = changesOf(readFileSync(join(ROOT, 'docs', 'changes.md'), 'utf8'));
    expect(changes.length).toBeGreaterThan(10);
    expect(changelogOf(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'), pkg.version)).toEqual(changes);
  });

  it('catches a change docs/changes.md tells and the CHANGELOG misses, and a breaking mark left out', () => {
    const changes =
      '- **One** (breaking; see x): text\n  more.\n\n- **Two**: text (breaking later, not in the first parenthesis).\n';
    expect(changesOf(changes)).toEqual([
      { title: 'One', breaking: true },
      { title: 'Two', breaking: false },
    ]);
    const log = '# Changelog\n\n## 0.2.0\n\n- One\n\n## 0.1.0\n\n- Old\n';
    expect(changelogOf(log, '0.2.0')).not.toEqual(changesOf(changes));
    expect(changelogOf(log, '0.3.0')).toBeUndefined();
  });
});
