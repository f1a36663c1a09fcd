/**
 * Synthesized templates as the repo keeps them (integ snapshots, the upgrade baseline): asset hashes,
 * which change with any handler's bundle, and the integ assertions' `salt` (the synth time, so that
 * every deploy runs them again) replaced, so that only what a deploy would change differs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { PATH_METADATA_ENABLE_CONTEXT } from 'aws-cdk-lib/cx-api';

/** A template as a snapshot holds it: JSON, one space a level, asset hashes and salts replaced. */
export function normalizeTemplate(template: unknown): string {
  return `${JSON.stringify(template, null, 1)
    .replace(/[0-9a-f]{64}/g, '<asset-hash>')
    .replace(/"salt": "\d+"/g, '"salt": "<synth-time>"')}\n`;
}

/**
 * Each stack of an app, by template file name, normalized: `build` gets an App that synthesizes into
 * a temporary directory, removed at once. `pathMetadata` writes each resource's construct path
 * (`aws:cdk:path`), as `cdk synth` does.
 */
export function synthesizedTemplates(
  build: (app: App) => unknown,
  options: { pathMetadata?: boolean } = {},
): Record<string, string> {
  const outdir = mkdtempSync(join(tmpdir(), 'templates-'));
  try {
    const app = new App({
      outdir,
      context: options.pathMetadata ? { [PATH_METADATA_ENABLE_CONTEXT]: true } : undefined,
    });
    build(app);
    const assembly = app.synth();
    return Object.fromEntries(assembly.stacks.map((stack) => [stack.templateFile, normalizeTemplate(stack.template)]));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
