/**
 * The upgrade gate: every app's templates today against the baseline (the templates of the last
 * release, in test/upgrade/baseline/, with the commit they came from). A change that replaces a
 * stateful resource, removes one, or touches a Custom::Bank* resource fails here unless
 * docs/changes.md lists it with its migration; updates in place pass and are printed.
 *
 * `npm run baseline` rewrites the baseline, when a release is cut (docs/development.md, "The upgrade
 * gate"). A failure here is never fixed by moving the baseline: list the break, or undo it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeChange,
  judge,
  readListedBreaks,
  upgradeChanges,
  type TemplateJson,
  type UpgradeChange,
} from '../support/upgrade-gate';
import { UPGRADE_APPS } from './apps';
import { FIXTURE, type HandlerPermissions } from '../../tools/cfn-handler-permissions';
import {
  BASELINE_DIR,
  BASELINE_MANIFEST,
  readBaselineManifest,
  readBaselineTemplate,
  stackOf,
  synthesizeForBaseline,
  type BaselineManifest,
} from './baseline';

const ROOT = join(__dirname, '..', '..');
const UPDATE = process.env.UPDATE_UPGRADE_BASELINE === '1';
/** What a synthesized template depends on: the baseline is made only where these are as committed. */
const SYNTHESIZED_FROM = [
  'lib',
  'contracts',
  'lambda',
  'examples',
  'test/integ',
  'cdk.json',
  'package.json',
  'package-lock.json',
];

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

if (UPDATE) {
  it("writes every app's templates as the baseline, with the commit they come from", () => {
    const changed = git('status', '--porcelain', '--', ...SYNTHESIZED_FROM);
    if (changed) {
      throw new Error(
        `npm run baseline makes the baseline from a commit, and these differ from HEAD:\n${changed}\nCommit them (or set them aside) first.`,
      );
    }
    rmSync(BASELINE_DIR, { recursive: true, force: true });
    const apps: Record<string, string[]> = {};
    for (const [app, build] of Object.entries(UPGRADE_APPS)) {
      const templates = synthesizeForBaseline(build);
      mkdirSync(join(BASELINE_DIR, app), { recursive: true });
      for (const [file, text] of Object.entries(templates)) writeFileSync(join(BASELINE_DIR, app, file), text);
      apps[app] = Object.keys(templates).sort();
    }
    const manifest: BaselineManifest = {
      commit: git('rev-parse', 'HEAD'),
      subject: git('log', '-1', '--format=%s'),
      committedAt: git('log', '-1', '--format=%cI'),
      awsCdkLib: (
        JSON.parse(readFileSync(join(ROOT, 'node_modules/aws-cdk-lib/package.json'), 'utf8')) as { version: string }
      ).version,
      apps,
    };
    writeFileSync(BASELINE_MANIFEST, `${JSON.stringify(manifest, null, 1)}\n`);
    expect(Object.keys(apps).sort()).toEqual(Object.keys(UPGRADE_APPS).sort());
  });
} else {
  describe('the upgrade gate', () => {
    const manifest = readBaselineManifest();
    const changes: Record<string, UpgradeChange[]> = {};
    const newStacks: string[] = [];
    const types = new Set<string>();
    for (const app of [...new Set([...Object.keys(manifest.apps), ...Object.keys(UPGRADE_APPS)])].sort()) {
      const now = UPGRADE_APPS[app] ? synthesizeForBaseline(UPGRADE_APPS[app]) : {};
      for (const text of Object.values(now))
        for (const resource of Object.values((JSON.parse(text) as TemplateJson).Resources ?? {}))
          types.add((resource as { Type: string }).Type);
      const before = manifest.apps[app] ?? [];
      changes[app] = [...new Set([...before, ...Object.keys(now)])].sort().flatMap((file) => {
        if (!before.includes(file)) newStacks.push(`${app}: ${stackOf(file)}`);
        return upgradeChanges(
          stackOf(file),
          before.includes(file) ? readBaselineTemplate(app, file) : undefined,
          now[file] ? (JSON.parse(now[file]) as TemplateJson) : undefined,
        );
      });
    }
    const { breaks, problems } = readListedBreaks(readFileSync(join(ROOT, 'docs', 'changes.md'), 'utf8'));
    const verdict = judge(Object.values(changes).flat(), breaks, manifest.commit);

    afterAll(() => {
      // What passes is listed, so a reviewer sees what a deployed stack will see.
      const lines = [
        `Upgrade from the baseline ${manifest.commit.slice(0, 12)} ("${manifest.subject}"):`,
        ...newStacks.map((stack) => `  new stack ${stack}`),
        ...verdict.listed.map(
          ({ change, row }) => `  listed in docs/changes.md line ${row.line}: ${describeChange(change)}`,
        ),
        ...verdict.passing.map((change) => `  passes: ${describeChange(change)}`),
      ];
      if (lines.length > 1) console.log(lines.join('\n'));
    });

    it('has a baseline from a commit of this repository, with every stack it names', () => {
      expect(manifest.commit).toMatch(/^[0-9a-f]{40}$/);
      const missing = Object.entries(manifest.apps).flatMap(([app, files]) =>
        files.filter((file) => !existsSync(join(BASELINE_DIR, app, file))).map((file) => `${app}/${file}`),
      );
      expect(missing).toEqual([]);
      const extra = Object.keys(manifest.apps).flatMap((app) =>
        readdirSync(join(BASELINE_DIR, app))
          .filter((file) => !manifest.apps[app].includes(file))
          .map((file) => `${app}/${file}`),
      );
      expect(extra).toEqual([]);
    });

    it("knows CloudFormation's handler permissions for every resource type an app holds (the configuration guard's tests read them)", () => {
      const known = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as HandlerPermissions).types;
      const missing = [...types].filter((type) => !type.startsWith('Custom::') && !known[type]).sort();
      // Add them: npx tsx tools/cfn-handler-permissions.ts <cfn-lint venv> --write --add <type>...
      expect(missing).toEqual([]);
    });

    it("reads every row of docs/changes.md's table of intended breaks", () => {
      expect(problems).toEqual([]);
    });

    it.each(Object.keys(changes))(
      '%s: nothing replaced, removed or re-registered that docs/changes.md does not list',
      (app) => {
        const fails = verdict.unlisted.filter((change) => changes[app].includes(change)).map(describeChange);
        expect(fails).toEqual([]);
      },
    );

    it('has no row, written against this baseline, that matches no change (a stale or mistyped row)', () => {
      expect(
        verdict.unmatched.map((row) => `docs/changes.md line ${row.line}: ${row.stack} ${row.resource} ${row.hazard}`),
      ).toEqual([]);
    });
  });
}
