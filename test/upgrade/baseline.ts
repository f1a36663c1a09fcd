/**
 * The upgrade baseline (test/upgrade/baseline/): every app's templates at the last release, asset
 * hashes normalized, and baseline.json naming the commit they came from and each app's stacks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { synthesizedTemplates } from '../support/templates';
import type { TemplateJson } from '../support/upgrade-gate';
import type { UPGRADE_APPS } from './apps';

export const BASELINE_DIR = join(__dirname, 'baseline');
export const BASELINE_MANIFEST = join(BASELINE_DIR, 'baseline.json');

/** baseline.json: where the baseline's templates came from, and which app has which stacks. */
export interface BaselineManifest {
  readonly commit: string;
  readonly subject: string;
  readonly committedAt: string;
  readonly awsCdkLib: string;
  /** By app (its folder under baseline/): the template file of each stack. */
  readonly apps: Record<string, string[]>;
}

export function readBaselineManifest(): BaselineManifest {
  return JSON.parse(readFileSync(BASELINE_MANIFEST, 'utf8')) as BaselineManifest;
}

/** A baseline template of an app, by its template file, parsed. */
export function readBaselineTemplate(app: string, file: string): TemplateJson {
  return JSON.parse(readFileSync(join(BASELINE_DIR, app, file), 'utf8')) as TemplateJson;
}

/** An app's templates as the baseline holds them: normalized, each resource with its construct path. */
export function synthesizeForBaseline(build: (typeof UPGRADE_APPS)[string]): Record<string, string> {
  return synthesizedTemplates(build, { pathMetadata: true });
}

/** The stack of a template file: `BankWebhooksExample.template.json` is `BankWebhooksExample`. */
export function stackOf(templateFile: string): string {
  return templateFile.replace(/\.template\.json$/, '');
}
