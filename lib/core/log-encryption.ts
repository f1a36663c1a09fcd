import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/**
 * Lets CloudWatch Logs of the stack's region use `key` for the library's log groups. A key made
 * in the same stack gets the statement in its key policy; an imported key's policy must already
 * allow `logs.<region>.amazonaws.com`.
 */
export function allowLogsToUse(scope: Construct, key: kms.IKey | undefined): void {
  key?.grantEncryptDecrypt(new iam.ServicePrincipal(`logs.${Stack.of(scope).region}.amazonaws.com`));
}
