import { type BankConnectionSettings, BankConnectionDefaults } from '../../lambda/shared/bank-connection';
export { simulatorCredentials } from '../../tools/local-runner/bank-credentials';
import { type BankSimulator, SimulatorPaths } from '../../tools/bank-simulator/simulator';

/** Connection settings pointing at a simulator, for its first account. */
export function simulatorConnection(s: BankSimulator, credentialsSecretArn: string, overrides: Partial<BankConnectionSettings> = {}): BankConnectionSettings {
  const account = s.accounts[0];
  return {
    baseUrl: s.baseUrl,
    registrationBaseUrl: s.baseUrl + SimulatorPaths.registrationBase,
    collectionTokenUrl: s.baseUrl + SimulatorPaths.collectionToken,
    paymentsTokenUrl: s.baseUrl + SimulatorPaths.paymentsToken,
    collectionScope: BankConnectionDefaults.collectionScope,
    paymentsScope: BankConnectionDefaults.paymentsScope,
    paymentsClientAuth: 'body',
    account: { cooperativa: account.cooperativa, posto: account.posto, conta: account.conta, documento: account.documento, codigoBeneficiario: account.beneficiario },
    credentialsSecretArn,
    boletoQueryPath: BankConnectionDefaults.boletoQueryPath,
    paymentQueryPaths: BankConnectionDefaults.paymentQueryPaths,
    callTimeoutMs: 1_500,
    ...overrides,
  };
}
