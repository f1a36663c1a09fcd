/** The integ apps, by file name: each builds its test stack and assertions in the App it is given. */
import type { App } from 'aws-cdk-lib';
import { buildBasicReceiverInteg } from './integ.basic-receiver';
import { buildConfigurationInteg } from './integ.configuration';
import { buildPixReceiverInteg } from './integ.pix-receiver';
import { buildStagingPairInteg } from './integ.staging-pair';

export const INTEG_APPS: Record<string, (app: App) => App> = {
  'integ.basic-receiver.ts': buildBasicReceiverInteg,
  'integ.staging-pair.ts': buildStagingPairInteg,
  'integ.pix-receiver.ts': buildPixReceiverInteg,
  'integ.configuration.ts': buildConfigurationInteg,
};
