/** Calls of the simulator's standard Pix API, as a Pix client makes them (PIX-NOTES.md). */
import { SIMULATOR_PATHS as P } from '../../contracts/sandbox';
import { SimulatorEngine } from '../../simulator/engine';
import { BankSimulator, SAMPLE_ACCOUNT } from '../../simulator/simulator';
import { type BankAnswer, bankCall } from './bank-session';
import { type ReceiverPki, startTarget, type Target } from './tls-targets';

export type PixEndpoint = Pick<
  BankSimulator,
  | 'baseUrl'
  | 'caPem'
  | 'credentials'
  | 'accounts'
  | 'pixClientCertPem'
  | 'pixClientKeyPem'
  | 'clientCertPem'
  | 'clientKeyPem'
>;

export interface PixCallOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** Which client certificate to present. @default 'pix' */
  readonly certificate?: 'pix' | 'payments' | 'none';
}

/** One HTTPS call to the simulator's origin (a path under it), presenting the Pix application's certificate unless told otherwise. */
export function pixCall(simulator: PixEndpoint, path: string, options: PixCallOptions = {}): Promise<BankAnswer> {
  const cert = options.certificate ?? 'pix';
  return bankCall(simulator, path, {
    method: options.method,
    headers: options.headers,
    body: options.body,
    clientCertificate:
      cert === 'pix' ? { certPem: simulator.pixClientCertPem, keyPem: simulator.pixClientKeyPem } : cert === 'payments',
  });
}

/** `Basic client_id:client_secret` of the simulator's Pix client. */
export function pixBasic(simulator: PixEndpoint, secret = simulator.credentials.pix!.clientSecret): string {
  return `Basic ${Buffer.from(`${simulator.credentials.pix!.clientId}:${secret}`).toString('base64')}`;
}

/** POST /oauth/token: `form` in the body (grant_type=client_credentials unless overridden), `query` in the query string. */
export function pixTokenCall(
  simulator: PixEndpoint,
  form: Record<string, string> = { grant_type: 'client_credentials' },
  options: { query?: string; certificate?: PixCallOptions['certificate']; authorization?: string } = {},
) {
  return pixCall(simulator, `${P.pixToken}${options.query ? `?${options.query}` : ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: options.authorization ?? pixBasic(simulator),
    },
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

/** A simulator and an HTTPS receiver (from `pki`) that it trusts and that records the client certificate its callers present. */
export async function startPixPeers(pki: ReceiverPki): Promise<{ simulator: BankSimulator; target: Target }> {
  const simulator = await BankSimulator.start({ trustedCas: [pki.ca.certPem] });
  const target = await startTarget({ pair: pki.leaf, clientCas: [simulator.caPem] });
  return { simulator, target };
}

/** Stops what {@link startPixPeers} started (either may be missing when it failed half-way). */
export async function stopPixPeers(peers: { simulator?: BankSimulator; target?: Target }): Promise<void> {
  await peers.target?.close();
  await peers.simulator?.stop();
}

/** A simulator's engine alone (no server), with `simulator`'s credentials and a host that delivers nothing: for its state. */
export function bareEngine(simulator: BankSimulator): SimulatorEngine {
  const host = {
    info: () => simulator.info,
    deliveries: {
      submit: () => undefined,
      records: () => [],
      clear: () => undefined,
      pending: 0,
      idle: () => Promise.resolve(true),
    },
    trustCa: () => undefined,
  };
  return new SimulatorEngine({ accounts: [SAMPLE_ACCOUNT], credentials: simulator.credentials, host });
}
