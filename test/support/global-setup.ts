import { assemblyIsFresh, bundleCli, bundleHandlers, bundlesAreFresh, cliIsFresh, compileWithJsii } from '../../tools/bundle-handlers';

/**
 * Tests load the handler bundles the constructs deploy, and run the CLI bundle that is published;
 * never let them run against stale ones.
 * Rebundles when any handler source, the bundling script or the lock file changed since the
 * last build (`npm run build` stamps a hash of them).
 */
export default async function globalSetup(): Promise<void> {
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
