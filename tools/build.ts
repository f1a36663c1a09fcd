/**
 * `npm run build`: compiles lib/ (and the lambda/shared modules it imports) with tsc into dist/,
 * then bundles each handler with esbuild into dist/handlers/<name>/, and the CLI into dist/cli/.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCli, bundleHandlers, ROOT } from './bundle-handlers';

async function main(): Promise<void> {
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
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
