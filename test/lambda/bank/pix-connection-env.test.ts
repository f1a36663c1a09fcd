/** What the Pix family's handlers read of what the constructs wrote: the connection and the credentials secret. */
import { PIX_CONNECTION_ENV, PixOperation } from '../../../contracts/pix-connection';
import { PROCESSOR_SETTINGS_ENV } from '../../../contracts/processor';
import { parsePixCredentials, readPixConnection } from '../../../lambda/bank/pix';
import { readProcessorSettings } from '../../../lambda/processor/settings';
import { SETTINGS } from '../../support/processor-records';

const ARN = 'arn:aws:secretsmanager:sa-east-1:111111111111:secret:pix-AbCdEf';
const CONNECTION = {
  baseUrl: 'https://api-pix.example',
  tokenUrl: 'https://api-pix.example/oauth/token',
  credentialsSecretArn: ARN,
};

it('reads no Pix connection when the construct wrote none, and the one it wrote', () => {
  expect(readPixConnection({}, 'SettlementProcessor')).toBeUndefined();
  const env = {
    [PIX_CONNECTION_ENV]: JSON.stringify({ ...CONNECTION, paths: { [PixOperation.COB_QUERY]: '/api/v3/cob/{txid}' } }),
  };
  expect(readPixConnection(env, 'SettlementProcessor')).toMatchObject({
    baseUrl: CONNECTION.baseUrl,
    paths: { [PixOperation.COB_QUERY]: '/api/v3/cob/{txid}' },
  });
});

it('refuses a connection someone edited: an unknown operation, a grant type, a missing field, naming the construct', () => {
  const read = (value: unknown) => () =>
    readPixConnection({ [PIX_CONNECTION_ENV]: JSON.stringify(value) }, 'SettlementProcessor');
  expect(read({ ...CONNECTION, paths: { nope: '/x' }, grantType: 'header' })).toThrow(
    `${PIX_CONNECTION_ENV}: grantType, paths.nope invalid`,
  );
  expect(read({ ...CONNECTION, tokenUrl: '' })).toThrow(/lacks tokenUrl.*SettlementProcessor/);
});

it('reads the Pix credentials secret, naming fields and never a value', () => {
  expect(parsePixCredentials(JSON.stringify({ clientId: 'id', clientSecret: 's3cr3t-value' }), ARN)).toEqual({
    clientId: 'id',
    clientSecret: 's3cr3t-value',
  });
  const bad = () =>
    parsePixCredentials(JSON.stringify({ clientId: 'id', clientSecret: 42, password: 's3cr3t-value' }), ARN);
  expect(bad).toThrow(
    `Pix credentials secret ${ARN} is invalid: unknown field(s) password (known: clientId, clientSecret, clientCertificate, clientKey, caCertificates); field(s) clientSecret must be strings`,
  );
  expect(() => parsePixCredentials('s3cr3t-value', ARN)).toThrow(/is not JSON: store an object such as/);
  try {
    bad();
  } catch (error) {
    expect((error as Error).message).not.toContain('s3cr3t');
  }
});

it("takes the processor's Pix keys only in their normal form", () => {
  const env = (pixKeys: unknown) => ({ [PROCESSOR_SETTINGS_ENV]: JSON.stringify({ ...SETTINGS, pixKeys }) });
  expect(readProcessorSettings(env(['financeiro@example.com.br'])).pixKeys).toEqual(['financeiro@example.com.br']);
  expect(() => readProcessorSettings(env(['Financeiro@Example.com.br']))).toThrow(
    /pixKeys must be a list of Pix keys in their normal form/,
  );
  expect(() => readProcessorSettings(env('financeiro@example.com.br'))).toThrow(/pixKeys/);
});

it("takes the processor's Pix flags only as true or false, naming the one that is not", () => {
  const env = (extra: Record<string, unknown>) => ({
    [PROCESSOR_SETTINGS_ENV]: JSON.stringify({ ...SETTINGS, pixKeys: ['financeiro@example.com.br'], ...extra }),
  });
  expect(readProcessorSettings(env({ pixKeyless: true, pixCallbacksAuthenticated: true }))).toMatchObject({
    pixKeyless: true,
    pixCallbacksAuthenticated: true,
  });
  expect(() => readProcessorSettings(env({ pixCallbacksAuthenticated: 'yes' }))).toThrow(
    /pixCallbacksAuthenticated must be true or false \(the SettlementProcessor construct writes it; redeploy/,
  );
  expect(() => readProcessorSettings(env({ pixKeyless: 1 }))).toThrow(/pixKeyless must be true or false/);
});

it('takes bulk verification only as whole seconds and minutes in range: an edited environment is refused, not read as a rate', () => {
  const env = (pixBulk: unknown) => ({
    [PROCESSOR_SETTINGS_ENV]: JSON.stringify({ ...SETTINGS, pixKeys: ['financeiro@example.com.br'], pixBulk }),
  });
  expect(readProcessorSettings(env({ afterSeconds: 10, chargeReachMinutes: 60 })).pixBulk).toEqual({
    afterSeconds: 10,
    chargeReachMinutes: 60,
  });
  for (const bad of [
    null,
    'on',
    { afterSeconds: -1, chargeReachMinutes: 60 },
    { afterSeconds: 10 },
    { afterSeconds: 1.5, chargeReachMinutes: 1 },
    { afterSeconds: 10, chargeReachMinutes: 1441 },
  ])
    expect(() => readProcessorSettings(env(bad))).toThrow(
      /pixBulk must hold afterSeconds \(a whole number of seconds, 0 or more\) and chargeReachMinutes \(whole minutes from 0 to 1440\)/,
    );
});
