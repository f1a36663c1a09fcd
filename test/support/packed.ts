/**
 * What the npm tarball holds, by npm's own list (`npm pack --dry-run`), and the sections of a
 * Markdown page by GitHub's anchors: shared by the tests that hold the docs to what ships.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** Every path in the tarball, relative to the package root. */
export const packedFiles = (): Set<string> =>
  new Set(
    (
      JSON.parse(
        execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
      ) as [{ files: { path: string }[] }]
    )[0].files.map((f) => f.path),
  );

/** GitHub's anchor of a heading: lower case, letters (accented ones too), digits, `_` and `-` kept, spaces to `-`. */
export const anchorOf = (heading: string) =>
  heading
    .replace(/^#+ /, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a Markdown page: its headings' and its explicit `<a id="…">` (outside fenced code). */
export const anchors = (page: string) => {
  let fenced = false;
  const found = new Set<string>();
  for (const line of readFileSync(join(ROOT, page), 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) found.add(anchorOf(line));
    if (!fenced) for (const m of line.matchAll(/<a id="([^"]+)">/g)) found.add(m[1]);
  }
  return found;
};
