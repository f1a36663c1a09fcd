/** The local Secrets Manager finds secrets the ways the service does, with the real SDK client. */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { LocalSecretsManager } from '../../../tools/local-aws/secrets-manager-server';
import { TEST_AWS } from '../../support/aws-env';

const secrets = new LocalSecretsManager();
let client: SecretsManagerClient;

beforeAll(async () => {
  client = new SecretsManagerClient({ ...TEST_AWS, endpoint: await secrets.start() });
});

afterAll(async () => {
  client.destroy();
  await secrets.stop();
});

const valueOf = async (SecretId: string) => (await client.send(new GetSecretValueCommand({ SecretId }))).SecretString;

it('finds a secret by ARN, by name, and by the partial ARN a template holds for a secret imported by name', async () => {
  const arn = secrets.createSecret('team/bank-credentials', '{"a":1}');
  expect(arn).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:team\/bank-credentials-[0-9a-f-]{6}$/);
  expect(await valueOf(arn)).toBe('{"a":1}');
  expect(await valueOf('team/bank-credentials')).toBe('{"a":1}');
  expect(await valueOf('arn:aws:secretsmanager:us-east-1:000000000000:secret:team/bank-credentials')).toBe('{"a":1}');
  expect(secrets.currentValue('team/bank-credentials')).toBe('{"a":1}');
});

it('answers ResourceNotFoundException for a name it does not hold, even one that starts like another', async () => {
  secrets.createSecret('token', 'x');
  await expect(valueOf('arn:aws:secretsmanager:us-east-1:000000000000:secret:tok')).rejects.toMatchObject({
    name: 'ResourceNotFoundException',
  });
  await expect(valueOf('other')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  expect(secrets.currentValue('other')).toBeUndefined();
});
