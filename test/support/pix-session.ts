/** Calls of the simulator's standard Pix API, as a Pix client makes them (PIX-NOTES.md). */
import { SIMULATOR_PATHS as P } from '../../contracts/sandbox';
import { httpCall } from '../../simulator/https-client';
import type { BankSimulator } from '../../simulator/simulator';
import type { BankAnswer } from './bank-session';

export type PixEndpoint = Pick<BankSimulator, 'baseUrl' | 'caPem' | 'credentials' | 'pixClientCertPem' | 'pixClientKeyPem' | 'clientCertPem' | 'clientKeyPem'>;

export interface PixCallOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** Which client certificate to present. @default 'pix' */
  readonly certificate?: 'pix' | 'payments' | 'none';
}

/** One HTTPS call to the simulator's origin (a path under it), presenting the Pix application's certificate. */
export async function pixCall(simulator: PixEndpoint, path: string, options: PixCallOptions = {}): Promise<BankAnswer> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const cert = options.certificate ?? 'pix';
  const result = await httpCall(simulator.baseUrl + path, {
    method: options.method ?? 'GET',
    headers: { ...(body !== undefined && typeof options.body !== 'string' ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body,
    trustedCas: [simulator.caPem],
    clientCertPem: cert === 'pix' ? simulator.pixClientCertPem : cert === 'payments' ? simulator.clientCertPem : undefined,
    clientKeyPem: cert === 'pix' ? simulator.pixClientKeyPem : cert === 'payments' ? simulator.clientKeyPem : undefined,
  });
  let json: unknown;
  try {
    json = result.body ? JSON.parse(result.body) : undefined;
  } catch {
    json = undefined;
  }
  return { ...result, json };
}

/** `Basic client_id:client_secret` of the simulator's Pix client. */
export function pixBasic(simulator: PixEndpoint, secret = simulator.credentials.pix!.clientSecret): string {
  return `Basic ${Buffer.from(`${simulator.credentials.pix!.clientId}:${secret}`).toString('base64')}`;
}

/** POST /oauth/token: `form` in the body (grant_type=client_credentials unless overridden), `query` in the query string. */
export function pixTokenCall(simulator: PixEndpoint, form: Record<string, string> = { grant_type: 'client_credentials' }, options: { query?: string; certificate?: PixCallOptions['certificate']; authorization?: string } = {}) {
  return pixCall(simulator, `${P.pixToken}${options.query ? `?${options.query}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: options.authorization ?? pixBasic(simulator) },
    body: new URLSearchParams(form).toString(),
    certificate: options.certificate,
  });
}

/** The bearer header of a fresh Pix token (all scopes unless `scope` is given). */
export async function pixAuth(simulator: PixEndpoint, scope?: string): Promise<Record<string, string>> {
  const answer = await pixTokenCall(simulator, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  if (answer.status !== 200) throw new Error(`Pix token refused: ${answer.status} ${answer.body}`);
  return { authorization: `Bearer ${answer.json.access_token as string}` };
}

/** A path under the Pix API's base (`/api/v2`). */
export const pixPath = (rest: string): string => `${P.pixApi}${rest}`;
