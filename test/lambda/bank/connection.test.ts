import { Stack } from 'aws-cdk-lib';
import { BANK_CONNECTION_ENV, compactBankConnection } from '../../../contracts/bank-connection';
import { bankConnectionSettings } from '../../../lib/families/cooperative/connection';
import { testBankConnection } from '../../support/cdk';
import { parseBankCredentials, readBankConnection } from '../../../lambda/bank/cooperative/connection';
import { backoffDelay, DEFAULT_RETRY_POLICY, retryAfterMs } from '../../../lambda/shared/retry';

const ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bank';

describe('parseBankCredentials', () => {
  it('accepts the documented fields', () => {
    const value = {
      apiKey: 'k',
      password: 'p',
      clientId: 'i',
      clientSecret: 's',
      clientCertificate: 'C',
      clientKey: 'K',
      caCertificates: 'A',
      username: 'u',
    };
    expect(parseBankCredentials(JSON.stringify(value), ARN)).toEqual(value);
  });

  it('names what is wrong, never a value', () => {
    const secretish = 'SuperSecretValue123';
    const bad = () =>
      parseBankCredentials(JSON.stringify({ apiKey: 1, pasword: secretish, clientCertificate: secretish }), ARN);
    expect(bad).toThrow(
      `Bank credentials secret ${ARN} is invalid: unknown field(s) pasword (known: apiKey, username, password, clientId, clientSecret, clientCertificate, clientKey, caCertificates); field(s) apiKey must be strings; clientCertificate and clientKey go together: set both or neither`,
    );
    try {
      bad();
    } catch (error) {
      expect((error as Error).message).not.toContain(secretish);
    }
  });

  it('refuses a value that is not a JSON object', () => {
    expect(() => parseBankCredentials('plain-password', ARN)).toThrow(/is not JSON: store an object such as/);
    expect(() => parseBankCredentials('["a"]', ARN)).toThrow(/must hold a JSON object/);
    expect(() => parseBankCredentials(undefined, ARN)).toThrow(/is not JSON/);
  });
});

describe('readBankConnection', () => {
  it('says what is missing and what to do', () => {
    expect(() => readBankConnection({}, 'SettlementProcessor')).toThrow(
      `${BANK_CONNECTION_ENV} is not set (the SettlementProcessor construct sets it; redeploy rather than editing it)`,
    );
    expect(() => readBankConnection({ [BANK_CONNECTION_ENV]: '{' }, 'SettlementProcessor')).toThrow(/is not JSON/);
    expect(() =>
      readBankConnection({ [BANK_CONNECTION_ENV]: '{"baseUrl":"https://x"}' }, 'SettlementProcessor'),
    ).toThrow(
      /lacks registrationBaseUrl, collectionTokenUrl, paymentsTokenUrl, collectionScope, paymentsScope, credentialsSecretArn, boletoQueryPath, settledBoletosPath, account, paymentQueryPaths/,
    );
  });

  it('reads back exactly what the construct wrote, whole or without its defaults, and refuses what is malformed', () => {
    const settings = bankConnectionSettings(testBankConnection(new Stack()));
    expect(readBankConnection({ [BANK_CONNECTION_ENV]: JSON.stringify(settings) }, 'ReconciliationSweep')).toEqual(
      settings,
    );
    expect(
      readBankConnection(
        { [BANK_CONNECTION_ENV]: JSON.stringify(compactBankConnection(settings)) },
        'ReconciliationSweep',
      ),
    ).toEqual(settings);
    expect(() =>
      readBankConnection(
        { [BANK_CONNECTION_ENV]: JSON.stringify({ ...settings, callTimeoutMs: 0, paymentsClientAuth: 'digest' }) },
        'ReconciliationSweep',
      ),
    ).toThrow(
      `${BANK_CONNECTION_ENV}: callTimeoutMs, paymentsClientAuth missing or invalid (the ReconciliationSweep construct sets it; redeploy rather than editing it)`,
    );
    // What has no default is never made up.
    const { credentialsSecretArn: _arn, ...withoutCredentials } = compactBankConnection(settings);
    expect(() =>
      readBankConnection({ [BANK_CONNECTION_ENV]: JSON.stringify(withoutCredentials) }, 'ReconciliationSweep'),
    ).toThrow(/lacks credentialsSecretArn/);
  });
});

describe('retry timing', () => {
  it('waits a random time up to base × 2^(attempt−1), capped', () => {
    expect([1, 2, 3, 10].map((attempt) => backoffDelay(attempt, DEFAULT_RETRY_POLICY, () => 0.999))).toEqual([
      199, 399, 799, 4995,
    ]);
    expect(backoffDelay(3, DEFAULT_RETRY_POLICY, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('0.5', now)).toBe(500);
    expect(retryAfterMs('Sun, 22 Nov 2026 10:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});
