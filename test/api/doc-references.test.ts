/**
 * The docs a user reads from the package point only at what they can open (issue 69, item 1):
 * every link and every file path in `README.md` and `docs/` is a file or folder the tarball ships
 * (a relative link, with its section), an address in the repository the package names
 * (`package.json` `repository`, at `blob/main/<file>` or `tree/main/<folder>`, and that path is
 * in the repository), or another public `https://` address. Fenced code blocks are commands run
 * in a clone of the repository, as the text around each says, and are not read here; a path git
 * ignores (`.ci/out/`, `cdk.out/`) is a command's output, not a file of the repository.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { anchors, packedFiles, ROOT } from '../support/packed';

const packed = packedFiles();
const packedFolders = new Set(
  [...packed].flatMap((file) =>
    file
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const trackedFiles = new Set(tracked);
const trackedFolders = new Set(
  tracked.flatMap((file) =>
    file
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);
const topLevel = new Set(tracked.map((file) => file.split('/')[0]));
const ignored = (path: string) => {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
};

const { repository } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository: { url: string } };
const REPOSITORY = repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];

interface Reference {
  readonly where: string;
  readonly text: string;
}
const LINK = /\[((?:[^\]`]|`[^`]*`)*)\]\(([^)\s]+)\)/g;

/** Links and code spans of a page, outside fenced blocks; a code span inside a link's label is the link's. */
const read = (page: string, text = readFileSync(join(ROOT, page), 'utf8')) => {
  const links: (Reference & { target: string })[] = [];
  const spans: Reference[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || line.startsWith('```')) return;
    const where = `${page}:${index + 1}`;
    for (const m of line.matchAll(LINK)) links.push({ where, text: m[1], target: m[2] });
    for (const m of line.replace(LINK, '').matchAll(/`([^`]+)`/g)) spans.push({ where, text: m[1] });
  });
  return { links, spans };
};

/** A path's part before its first placeholder or wildcard (`lambda/<handler>/` → `lambda`). */
const fixedPart = (path: string) => {
  const parts = path.replace(/\/$/, '').split('/');
  const cut = parts.findIndex((part) => /[<*{…]/.test(part));
  return (cut < 0 ? parts : parts.slice(0, cut)).join('/');
};
/** The repository's address of a file (`blob/main/…`) or folder (`tree/main/…`). */
const addressOf = (path: string) => `${REPOSITORY}/${trackedFiles.has(path) ? 'blob' : 'tree'}/main/${path}`;
const ships = (path: string) => packed.has(path) || packedFolders.has(path);
const inRepository = (path: string) => trackedFiles.has(path) || trackedFolders.has(path);

/** A code span that names a path of this repository: it starts with one of the repository's top-level entries. */
const isRepositoryPath = (text: string) =>
  /^[\w.@-]+(\/[^\s'"()]*)?$/.test(text) &&
  topLevel.has(text.split('/')[0]) &&
  (text.includes('/') || /\.\w+$/.test(text));

const problemsOf = (page: string, text?: string): string[] => {
  const { links, spans } = read(page, text);
  const found: string[] = [];
  for (const { where, target } of links) {
    const [path, section] = target.split('#');
    if (target.startsWith(`${REPOSITORY}/`)) {
      const m = /^\/(blob|tree)\/main\/(.+?)\/?$/.exec(target.slice(REPOSITORY.length).split('#')[0]);
      if (!m) found.push(`${where}: ${target} is not a blob/main or tree/main address`);
      else if (!(m[1] === 'blob' ? trackedFiles.has(m[2]) : trackedFolders.has(m[2])))
        found.push(
          `${where}: ${target} names ${m[2]}, which the repository does not hold as a ${m[1] === 'blob' ? 'file' : 'folder'}`,
        );
      continue;
    }
    if (/^https:\/\//.test(target)) continue;
    if (/^[a-z]+:/.test(target)) {
      found.push(`${where}: ${target} is neither https nor a path in the package`);
      continue;
    }
    const file = path === '' ? page : normalize(join(dirname(page), path)).replace(/\/$/, '');
    if (!ships(file)) {
      found.push(`${where}: ${target} names ${file}, which the package does not ship: link ${addressOf(file)}`);
      continue;
    }
    if (section && file.endsWith('.md') && !anchors(file).has(decodeURIComponent(section)))
      found.push(`${where}: ${target} names a section ${file} does not have`);
  }
  for (const { where, text } of spans) {
    if (!isRepositoryPath(text)) continue;
    const fixed = fixedPart(text);
    if (ships(fixed) || ignored(fixed)) continue;
    const address = `${REPOSITORY}/${trackedFiles.has(fixed) ? 'blob' : 'tree'}/main/${fixed}`;
    found.push(
      inRepository(fixed)
        ? `${where}: \`${text}\` is not in the package: link it, [\`${text}\`](${address})`
        : `${where}: \`${text}\` is neither in the package nor in the repository`,
    );
  }
  return found;
};

it('reads links and file paths from every page, the README included', () => {
  const all = pages.map((page) => read(page));
  expect(pages.length).toBeGreaterThan(15);
  expect(all.flatMap((p) => p.links).filter((l) => l.target.startsWith(REPOSITORY)).length).toBeGreaterThan(150);
  expect(all.flatMap((p) => p.spans).filter((s) => isRepositoryPath(s.text)).length).toBeGreaterThan(5);
});

it('names each kind of reference a reader could not open, and the link to write', () => {
  const page = [
    'See [the app](../examples/basic-receiver/app.ts), `test/lib/tracing.test.ts` and [`lib/`](../lib/).',
    `The [missing](${REPOSITORY}/blob/main/test/nowhere.test.ts), [a folder as a file](${REPOSITORY}/blob/main/lib).`,
    '[Gone](events.md#no-such-section), [plain](http://example.com/x), `tools/no-such-tool.ts`.',
    '```',
    'npx tsx test/integ/integ.staging-pair.ts   # a command in a clone: not read',
    '```',
    'Fine: [events](events.md#consuming-events), `schemas/events/`, `dist/handlers/<name>/`, `.ci/out/steps.tsv`.',
  ].join('\n');
  expect(problemsOf('docs/made-up.md', page)).toEqual([
    `docs/made-up.md:1: ../examples/basic-receiver/app.ts names examples/basic-receiver/app.ts, which the package does not ship: link ${REPOSITORY}/blob/main/examples/basic-receiver/app.ts`,
    `docs/made-up.md:1: ../lib/ names lib, which the package does not ship: link ${REPOSITORY}/tree/main/lib`,
    `docs/made-up.md:2: ${REPOSITORY}/blob/main/test/nowhere.test.ts names test/nowhere.test.ts, which the repository does not hold as a file`,
    `docs/made-up.md:2: ${REPOSITORY}/blob/main/lib names lib, which the repository does not hold as a file`,
    'docs/made-up.md:3: events.md#no-such-section names a section docs/events.md does not have',
    'docs/made-up.md:3: http://example.com/x is neither https nor a path in the package',
    `docs/made-up.md:1: \`test/lib/tracing.test.ts\` is not in the package: link it, [\`test/lib/tracing.test.ts\`](${REPOSITORY}/blob/main/test/lib/tracing.test.ts)`,
    'docs/made-up.md:3: `tools/no-such-tool.ts` is neither in the package nor in the repository',
  ]);
});

it('holds every link and file path in README.md and docs/ to the package, the repository by its address, or a public address', () => {
  expect(pages.flatMap((page) => problemsOf(page))).toEqual([]);
});
