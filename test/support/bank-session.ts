import { httpCall, type HttpCallResult } from '../../simulator/https-client';
import type { BankSimulator } from '../../simulator/simulator';

/** What the helpers need of a simulator: the local one, or a deployed one's local stand-in (test/support/sandbox-harness.ts). */
export type SimulatorEndpoint = Pick<BankSimulator, 'baseUrl' | 'caPem' | 'credentials' | 'accounts'> &
  Partial<Pick<BankSimulator, 'clientCertPem' | 'clientKeyPem'>>;

export interface BankAnswer extends HttpCallResult {
  /** The body parsed as JSON (undefined when empty). */
  readonly json: any;
}

export interface BankCallOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** Send the simulator's client certificate (mutual TLS), or this one. @default false */
  readonly clientCertificate?: boolean | { readonly certPem: string; readonly keyPem: string };
}

/** One raw HTTPS call to the simulator, trusting its CA. */
export async function bankCall(
  simulator: SimulatorEndpoint,
  path: string,
  options: BankCallOptions = {},
): Promise<BankAnswer> {
  const body =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  const result = await httpCall(simulator.baseUrl + path, {
    method: options.method ?? 'GET',
    headers: {
      ...(body !== undefined && typeof options.body !== 'string' ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body,
    trustedCas: [simulator.caPem],
    clientCertPem:
      typeof options.clientCertificate === 'object'
        ? options.clientCertificate.certPem
        : options.clientCertificate
          ? simulator.clientCertPem
          : undefined,
    clientKeyPem:
      typeof options.clientCertificate === 'object'
        ? options.clientCertificate.keyPem
        : options.clientCertificate
          ? simulator.clientKeyPem
          : undefined,
  });
  return { ...result, json: result.body ? JSON.parse(result.body) : undefined };
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Collection API: password grant; returns the answer. */
export function collectionTokenCall(
  simulator: SimulatorEndpoint,
  form: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const c = simulator.credentials.collection;
  return bankCall(simulator, '/auth/openapi/token', {
    method: 'POST',
    headers: { ...FORM, 'x-api-key': c.apiKey, context: 'COBRANCA', ...headers },
    body: new URLSearchParams({
      grant_type: 'password',
      username: c.username,
      password: c.password,
      scope: 'cobranca',
      ...form,
    }).toString(),
  });
}

/** Headers for a collection API call with a fresh token. */
export async function collectionHeaders(simulator: SimulatorEndpoint): Promise<Record<string, string>> {
  const token = (await collectionTokenCall(simulator)).json.access_token as string;
  return {
    'x-api-key': simulator.credentials.collection.apiKey,
    authorization: `Bearer ${token}`,
    cooperativa: simulator.accounts[0].cooperativa,
    posto: simulator.accounts[0].posto,
  };
}

/** Payments API: client_credentials over mutual TLS; returns the answer. */
export function paymentsTokenCall(
  simulator: SimulatorEndpoint,
  form: Record<string, string> = {},
  options: { clientCertificate?: boolean; headers?: Record<string, string> } = {},
) {
  const p = simulator.credentials.payments;
  return bankCall(simulator, '/thirdparty/auth/token', {
    method: 'POST',
    headers: { ...FORM, ...options.headers },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: p.clientId,
      client_secret: p.clientSecret,
      ...form,
    }).toString(),
    clientCertificate: options.clientCertificate ?? true,
  });
}

/** Headers for a payments API call (bearer token and the three account headers of spec 5.1). */
export async function paymentsHeaders(
  simulator: SimulatorEndpoint,
  account = simulator.accounts[0],
): Promise<Record<string, string>> {
  const token = (await paymentsTokenCall(simulator)).json.access_token as string;
  return {
    authorization: `Bearer ${token}`,
    'x-conta': account.conta,
    'x-cooperativa': account.cooperativa,
    'x-documento': account.documento,
  };
}

/** A valid boleto webhook contract body (spec 2.1) for the simulator's first account. */
export function contractBody(
  simulator: SimulatorEndpoint,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const account = simulator.accounts[0];
  return {
    cooperativa: account.cooperativa,
    posto: account.posto,
    codBeneficiario: account.beneficiario,
    eventos: ['LIQUIDACAO'],
    url: 'https://receiver.example.com/boleto',
    urlStatus: 'ATIVO',
    contratoStatus: 'ATIVO',
    nomeResponsavel: 'Equipe de Plataforma',
    email: 'plataforma@example.com',
    telefone: '+55 11 99999-0000',
    enviarIdTituloEmpresa: false,
    header: 'x-webhook-token',
    token: 'contract-token-value',
    ...overrides,
  };
}
