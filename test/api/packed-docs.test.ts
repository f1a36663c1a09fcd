/**
 * Runbooks reach package users (issue 53, item 4): the docs ship in the npm tarball, and every
 * page an alarm's description, a synth error or the API docs name (`cdk-bank-webhooks/docs/...`,
 * the path in the package; no repository URL exists yet) is in it, with the section it names.
 * The tarball's list is npm's own (`npm pack --dry-run`), so a change of `files` is caught here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildExampleApp } from '../../examples/basic-receiver/app';
import { buildHardenedApp } from '../../examples/hardened/app';
import { Runbook, runbookLink } from '../../lib/core/alarms';
import { anchors, packedFiles, ROOT } from '../support/packed';

const packed = packedFiles();

/** Every `cdk-bank-webhooks/docs/<page>.md[#section]` a text names. */
const named = (text: string) =>
  [...text.matchAll(/cdk-bank-webhooks\/docs\/([a-z-]+\.md)(?:#([\w-]+))?/g)].map((m) => ({
    page: `docs/${m[1]}`,
    section: m[2],
  }));

it('ships every page of docs/ in the tarball, beside README.md and API.md', () => {
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  expect(pages.length).toBeGreaterThan(10);
  for (const file of [...pages, 'README.md', 'API.md'])
    expect({ file, packed: packed.has(file) }).toEqual({ file, packed: true });
});

it('names each runbook by its path in the package, and that page and section ship', () => {
  for (const runbook of Object.values(Runbook)) {
    expect(runbookLink(runbook)).toBe(`cdk-bank-webhooks/docs/operations.md#${runbook}`);
    expect(packed.has('docs/operations.md')).toBe(true);
    expect(anchors('docs/operations.md').has(runbook)).toBe(true);
  }
});

it("every page the examples' alarms, the API docs and the constructs' messages name is in the tarball, with its section", () => {
  const texts = [
    JSON.stringify(
      buildExampleApp(new App())
        .synth()
        .stacks.map((s) => s.template),
    ),
    JSON.stringify(
      buildHardenedApp(new App())
        .synth()
        .stacks.map((s) => s.template),
    ),
    readFileSync(join(ROOT, 'API.md'), 'utf8'),
    ...readdirSync(join(ROOT, 'lib'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => readFileSync(join(ROOT, 'lib', f), 'utf8')),
  ];
  const references = texts.flatMap(named);
  expect(references.length).toBeGreaterThan(20);
  for (const { page, section } of references) {
    expect({ page, packed: packed.has(page) }).toEqual({ page, packed: true });
    if (section) expect({ page, section, found: anchors(page).has(section) }).toEqual({ page, section, found: true });
  }
  // No page is named by a bare `docs/...` path an operator could not place.
  for (const text of texts.slice(0, 2)) expect(text).not.toMatch(/(?<![\w/-])docs\/[a-z-]+\.md/);
});

it("cites no design note the package does not ship: the docs, the API docs and every shipped source name public sources or the package's own pages", () => {
  const sources = ['lib', 'contracts', 'lambda', 'cli', 'simulator'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(dir, f)),
  );
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  const citing = [...docs, 'README.md', 'API.md', ...sources].filter((file) =>
    /PIX-NOTES|BANK-NOTES|DESIGN\.md|\.\.\/shared\/seed/.test(readFileSync(join(ROOT, file), 'utf8')),
  );
  expect(citing).toEqual([]);
});
