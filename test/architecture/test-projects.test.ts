/**
 * The fast loop stays fast: a suite of the `unit` project (jest.config.js) starts no server, opens
 * no socket to one and runs no child process. A suite that does belongs in END_TO_END.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { projects } = require(join(ROOT, 'jest.config.js')) as {
  projects: Array<{ displayName: string; testPathIgnorePatterns?: string[] }>;
};
const SERVERS =
  /createServer|\.listen\(|startMoto|BankSimulator\.start|startPixPeers|LocalRunner\.start|startE2eRunner|child_process|execFile|spawn\(/;

function suites(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : suites(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

it('runs no server and no child process in a unit suite', () => {
  const ignored = projects
    .find((p) => p.displayName === 'unit')!
    .testPathIgnorePatterns!.filter((p) => !p.includes('<rootDir>'))
    .map((p) => new RegExp(p));
  const unit = suites(join(ROOT, 'test')).filter(
    (path) =>
      path !== __filename && !path.includes('/test/property/') && !ignored.some((pattern) => pattern.test(path)),
  );
  expect(unit.length).toBeGreaterThan(50);
  expect(unit.filter((path) => SERVERS.test(readFileSync(path, 'utf8'))).map((path) => relative(ROOT, path))).toEqual(
    [],
  );
});
