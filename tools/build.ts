/**
 * `npm run build`: compiles the public API (lib/ and the contracts/ it exports) with jsii into
 * dist/ and the `.jsii` assembly at the package root (0 warnings, or the build fails), then
 * bundles each handler with esbuild into dist/handlers/<name>/, and the CLI and the simulator
 * into dist/cli/ and dist/simulator/.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCli, bundleHandlers, compileWithJsii, ROOT } from './bundle-handlers';

async function main(): Promise<void> {
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  compileWithJsii();
  const sizes = await bundleHandlers();
  for (const [name, bytes] of Object.entries(sizes)) {
    console.log(`bundled ${name}: dist/handlers/${name}/index.js (${(bytes / 1024).toFixed(1)} KiB)`);
  }
  const cliBytes = await bundleCli();
  console.log(`bundled the CLI: dist/cli/cdk-bank-webhooks.js (${(cliBytes / 1024).toFixed(1)} KiB)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
