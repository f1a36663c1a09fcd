/**
 * The staging pair (examples/staging-pair): a NON_PRODUCTION receiver and the deployed bank
 * simulator in one stack, under cdk-nag's AwsSolutions pack with no unacknowledged finding; the
 * receiver registers with the sandbox and sweeps against it; the sandbox's stateful resources keep
 * their logical IDs.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { buildStagingPairApp } from '../../examples/staging-pair/app';
import { BankStage } from '../../lib';
import { temporaryApps } from '../support/cdk';

const newApp = temporaryApps('staging-pair-');

/** A changed ID replaces the sandbox's state or its credentials (the receiver would keep sending the old ones until its next deploy). */
const PINNED: Record<string, string> = {
  BankSandboxState179717A6: 'AWS::DynamoDB::Table',
  BankSandboxCredentialsA00A2BF7: 'AWS::SecretsManager::Secret',
  BankSandboxCredentialsFill83DAD043: 'Custom::BankSandboxCredentials',
  BankSandboxPixCredentials29EFB344: 'AWS::SecretsManager::Secret',
};

describe('the staging pair', () => {
  const { app, stack } = buildStagingPairApp(newApp());
  // Throws, listing each finding, if the stack has an unacknowledged one.
  const assembly = app.synth();
  const template = Template.fromJSON(assembly.getStackByName(stack.stackName).template as Record<string, unknown>);

  it('synthesizes under cdk-nag with a NON_PRODUCTION receiver that registers with the sandbox and sweeps against it', () => {
    expect(stack.receiver.stage).toBe(BankStage.NON_PRODUCTION);
    expect(stack.receiver.reconciliation).toBeDefined();
    expect(
      Object.keys({
        ...template.findResources('Custom::BankPaymentWebhookRegistration'),
        ...template.findResources('Custom::BankBoletoWebhookContract'),
      }),
    ).toHaveLength(2);
    template.resourceCountIs('AWS::Lambda::Url', 1);
    // Pix from the sandbox's Pix API: each of its keys registered at deploy.
    expect(Object.keys(template.findResources('Custom::BankPixKeyWebhook'))).toHaveLength(stack.sandbox.pixKeys.length);
  });

  it("keeps the logical IDs of the sandbox's state, credentials (the bank's and the Pix application's) and their fill", () => {
    const resources = template.toJSON().Resources as Record<string, { Type: string }>;
    for (const [id, type] of Object.entries(PINNED)) expect({ id, type: resources[id]?.Type }).toEqual({ id, type });
  });
});
