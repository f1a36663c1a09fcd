/**
 * `npx tsx tools/measure-bundle.ts [runs]`: builds the handlers twice into a temporary folder,
 * once with the AWS SDK bundled and once leaving `@aws-sdk/*` to the runtime (resolved from this
 * checkout's node_modules, as the Lambda runtime resolves its own copy), and reports each
 * receiver bundle's size and the median time to load it (require + module-level setup) in a
 * fresh `node` process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleHandlers, ROOT } from './bundle-handlers';
import { receiverEnvironment } from '../lib/endpoint/receiver-settings';

const ENV = {
  ...process.env,
  AWS_REGION: 'sa-east-1',
  AWS_ACCESS_KEY_ID: 'x',
  AWS_SECRET_ACCESS_KEY: 'x',
  ...receiverEnvironment({
    queueUrl: 'https://sqs.sa-east-1.amazonaws.com/111111111111/q',
    paymentsTokenSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:p',
    boletoTokenSecretArn: 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:b',
  }),
};

function loadTimeMs(file: string, nodeOptions: string): number {
  const script = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  return Number(
    execFileSync(process.execPath, ['-e', script], {
      env: { ...ENV, NODE_OPTIONS: nodeOptions },
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString(),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 15);
  const dir = mkdtempSync(join(tmpdir(), 'bundle-measure-'));
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const rows: string[][] = [];
    for (const bundleAwsSdk of [true, false]) {
      const outDir = join(dir, bundleAwsSdk ? 'sdk-bundled' : 'sdk-external');
      await bundleHandlers({ bundleAwsSdk, outDir });
      const file = join(outDir, 'receiver', 'index.js');
      for (const nodeOptions of ['', '--enable-source-maps']) {
        loadTimeMs(file, nodeOptions); // warm the file system cache
        const times = Array.from({ length: runs }, () => loadTimeMs(file, nodeOptions));
        rows.push([
          bundleAwsSdk ? 'bundled' : 'runtime',
          nodeOptions || '(none)',
          `${(statSync(file).size / 1024).toFixed(0)} KiB`,
          `${median(times).toFixed(1)} ms`,
        ]);
      }
    }
    console.log(`receiver bundle, median of ${runs} fresh node processes (${process.version})`);
    console.log(['AWS SDK', 'NODE_OPTIONS', 'size', 'load'].join('\t'));
    for (const row of rows) console.log(row.join('\t'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
