/**
 * Every app whose templates the upgrade gate holds to its baseline: the examples a team copies and
 * the integ apps a team can deploy, each built as its own entry point builds it (cdk-nag included).
 * The Python example (examples/python) synthesizes the same receiver through the jsii package, in
 * CI's Python check; it is not here.
 */
import type { App } from 'aws-cdk-lib';
import { buildExampleApp } from '../../examples/basic-receiver/app';
import { buildHardenedApp } from '../../examples/hardened/app';
import { buildStagingPairApp } from '../../examples/staging-pair/app';
import { buildTwoStageApp } from '../../examples/two-stages/app';
import { INTEG_APPS } from '../integ/apps';

/** By the baseline folder each app's templates go in: its source, without the `.ts`. */
export const UPGRADE_APPS: Record<string, (app: App) => unknown> = {
  'examples/basic-receiver': buildExampleApp,
  'examples/hardened': buildHardenedApp,
  'examples/staging-pair': buildStagingPairApp,
  'examples/two-stages': buildTwoStageApp,
  ...Object.fromEntries(
    Object.entries(INTEG_APPS).map(([file, build]) => [`test/integ/${file.replace(/\.ts$/, '')}`, build]),
  ),
};
