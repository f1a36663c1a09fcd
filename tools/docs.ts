/**
 * `npm run docs`: writes API.md, the API reference jsii-docgen generates from the `.jsii`
 * assembly (the Construct Hub convention). `npm run docs:check` (CI) fails when API.md is not what
 * the current assembly gives, or when a relative link in README.md, API.md or docs/ points at a
 * file or heading that does not exist.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { assemblyIsFresh, compileWithJsii, ROOT } from './bundle-handlers';

const API_FILE = join(ROOT, 'API.md');

/** The API reference of the current sources: the assembly (rebuilt unless newer than every source), then jsii-docgen. */
function generatedReference(): string {
  if (!assemblyIsFresh()) compileWithJsii();
  const dir = mkdtempSync(join(tmpdir(), 'api-md-'));
  try {
    const out = join(dir, 'API.md');
    execFileSync(process.execPath, [require.resolve('jsii-docgen/bin/jsii-docgen'), '--output', out], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: process.versions.node.split('.')[0] },
    });
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a Markdown file offers: its headings' and its explicit `id="…"` ones. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const base = anchorOf(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  for (const [, id] of text.matchAll(/\bid="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

/** The relative links of a Markdown file that point nowhere: `file:line: target (why)`. */
export function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '));
  const problems: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|href="([^"]+)"/g)) {
    const target = match[1] ?? match[2];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [path, anchor] = target.split('#');
    const destination = path ? resolve(dirname(file), decodeURI(path)) : file;
    const line = text.slice(0, match.index).split('\n').length;
    const where = `${relative(ROOT, file)}:${line}: ${target}`;
    if (!existsSync(destination)) problems.push(`${where} (no such file)`);
    else if (anchor && destination.endsWith('.md') && !anchorsOf(destination).has(anchor))
      problems.push(`${where} (no such heading)`);
  }
  return problems;
}

function markdownFiles(): string[] {
  const docs = join(ROOT, 'docs');
  return [
    join(ROOT, 'README.md'),
    API_FILE,
    ...readdirSync(docs)
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(docs, name)),
  ];
}

function main(): void {
  const check = process.argv.includes('--check');
  const reference = generatedReference();
  if (!check) {
    writeFileSync(API_FILE, reference);
    console.log(`wrote API.md (${reference.split('\n').length} lines)`);
    return;
  }
  const problems: string[] = [];
  if (!existsSync(API_FILE) || readFileSync(API_FILE, 'utf8') !== reference) {
    problems.push('API.md is not the API reference of the current sources: run `npm run docs` and commit API.md');
  }
  problems.push(...markdownFiles().filter(existsSync).flatMap(brokenLinks));
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  console.log(`API.md is current; every relative link in ${markdownFiles().length} Markdown files resolves`);
}

if (require.main === module) main();
