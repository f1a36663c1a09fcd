import { rmSync } from 'node:fs';
import { RUN_TMPDIR_ENV } from './global-setup';

/** Removes the run's temporary folder (global-setup.ts), with what every test left there. */
export default function globalTeardown(): void {
  const runTmp = process.env[RUN_TMPDIR_ENV];
  if (runTmp) rmSync(runTmp, { recursive: true, force: true });
}
