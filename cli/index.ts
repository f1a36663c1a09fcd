import { runCli } from './cli';

/** `cdk-bank-webhooks`: the package's command-line entry (bundled to dist/cli/cdk-bank-webhooks.js). */
const stopRequested = new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});

runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
  stopRequested,
}).then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`cdk-bank-webhooks: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
