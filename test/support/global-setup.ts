import { bundleHandlers, bundlesAreFresh } from '../../tools/bundle-handlers';

/**
 * Tests load the handler bundles the constructs deploy; never let them run against stale ones.
 * Rebundles when any handler source, the bundling script or the lock file changed since the
 * last build (`npm run build` stamps a hash of them).
 */
export default async function globalSetup(): Promise<void> {
  if (bundlesAreFresh()) return;
  const sizes = await bundleHandlers();
  process.stdout.write(`\nHandler bundles were stale; rebuilt: ${Object.keys(sizes).join(', ')}\n`);
}
