import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assemblyIsFresh,
  bundleCli,
  bundleHandlers,
  bundlesAreFresh,
  cliIsFresh,
  compileWithJsii,
} from '../../tools/bundle-handlers';

/** The environment variable holding this run's temporary folder (global-teardown.ts removes it). */
export const RUN_TMPDIR_ENV = 'CDK_BANK_WEBHOOKS_TEST_TMPDIR';

/**
 * Tests load the handler bundles the constructs deploy, and run the CLI bundle that is published;
 * never let them run against stale ones.
 * Rebundles when any handler source, the bundling script or the lock file changed since the
 * last build (`npm run build` stamps a hash of them).
 */
export default async function globalSetup(): Promise<void> {
  // Every temporary file of the run (an App's cdk.out* without an outdir, servers' folders) goes in
  // one folder removed at the end: they were left in /tmp, some 4 MB an App, by the thousand.
  // The workers start after this and inherit it.
  const runTmp = mkdtempSync(join(tmpdir(), 'cbw-jest-'));
  process.env[RUN_TMPDIR_ENV] = runTmp;
  process.env.TMPDIR = runTmp;
  if (!bundlesAreFresh()) {
    const sizes = await bundleHandlers();
    process.stdout.write(`\nHandler bundles were stale; rebuilt: ${Object.keys(sizes).join(', ')}\n`);
  }
  if (!assemblyIsFresh()) {
    compileWithJsii();
    process.stdout.write('\nThe jsii assembly was stale; rebuilt .jsii\n');
  }
  if (!cliIsFresh()) {
    await bundleCli();
    process.stdout.write('\nThe CLI bundle was stale; rebuilt dist/cli/cdk-bank-webhooks.js\n');
  }
}
