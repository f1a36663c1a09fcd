import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { loadAcceptedTokens, loadStageToken } from '../../../lambda/shared/secret-tokens';
import { LocalSecretsManager } from '../../../tools/local-aws/secrets-manager-server';
import { TEST_AWS } from '../../support/aws-env';

let secretsManager: LocalSecretsManager;
let client: SecretsManagerClient;

beforeAll(async () => {
  secretsManager = new LocalSecretsManager();
  client = new SecretsManagerClient({ ...TEST_AWS, endpoint: await secretsManager.start() });
});

afterAll(async () => {
  client?.destroy();
  await secretsManager?.stop();
});

it('reads one stage: the current value, and no pending value outside a rotation', async () => {
  const arn = secretsManager.createSecret('stage-plain', 'current-token');
  expect(await loadStageToken(client, arn, 'AWSCURRENT', 2_000)).toEqual(['current-token']);
  expect(await loadStageToken(client, arn, 'AWSPENDING', 2_000)).toEqual([]);
  expect(await loadAcceptedTokens(client, arn, 2_000)).toEqual(['current-token']);
});

it('gives both values during a rotation, the pending one last', async () => {
  const arn = secretsManager.createSecret('stage-rotating', 'old-token');
  secretsManager.putValue(arn, 'new-token', ['AWSPENDING']);
  expect(await loadStageToken(client, arn, 'AWSPENDING', 2_000)).toEqual(['new-token']);
  expect(await loadAcceptedTokens(client, arn, 2_000)).toEqual(['old-token', 'new-token']);
  secretsManager.putValue(arn, 'old-token', ['AWSPENDING']);
  expect(await loadAcceptedTokens(client, arn, 2_000)).toEqual(['old-token']);
});

it('refuses a secret whose current value is empty, saying how to store the token', async () => {
  const arn = secretsManager.createSecret('stage-empty', '');
  await expect(loadStageToken(client, arn, 'AWSCURRENT', 2_000)).rejects.toThrow(
    `Secret ${arn} has no AWSCURRENT string value: store the token as the secret's plain text value`,
  );
  await expect(loadAcceptedTokens(client, arn, 2_000)).rejects.toThrow('has no AWSCURRENT string value');
});

it('drops an empty pending value (it never authenticates anyone)', async () => {
  const arn = secretsManager.createSecret('stage-empty-pending', 'current-token');
  secretsManager.putValue(arn, '', ['AWSPENDING']);
  expect(await loadStageToken(client, arn, 'AWSPENDING', 2_000)).toEqual([]);
});

it('fails for a secret that does not exist when reading AWSCURRENT (always read first)', async () => {
  const arn = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:missing-abcdef';
  await expect(loadStageToken(client, arn, 'AWSCURRENT', 2_000)).rejects.toThrow("can't find the specified secret");
  await expect(loadAcceptedTokens(client, arn, 2_000)).rejects.toThrow("can't find the specified secret");
});
