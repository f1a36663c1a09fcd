import type { BankCredentials } from '../../lambda/shared/bank-connection';
import type { BankSimulator } from '../bank-simulator/simulator';

/** The bank credentials secret's JSON for a simulator: its passwords, client certificate and CA. */
export function simulatorCredentials(s: BankSimulator): BankCredentials {
  return {
    apiKey: s.credentials.collection.apiKey,
    password: s.credentials.collection.password,
    clientId: s.credentials.payments.clientId,
    clientSecret: s.credentials.payments.clientSecret,
    clientCertificate: s.clientCertPem,
    clientKey: s.clientKeyPem,
    caCertificates: s.caPem,
  };
}
