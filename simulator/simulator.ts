import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { BoletoAction, BoletoChangeInput } from './bank';
import type { BankBehaviour } from './behaviour';
import { SAMPLE_SIMULATOR_ACCOUNT } from '../contracts/sandbox';
import { createCertificateAuthority, issueCertificate, type PemPair } from './certificates';
import { BankSimulatorClient } from './control-client';
import {
  QueryOperation,
  type SimulatedBankOptions,
  SimulatorEngine,
  SimulatorPaths,
  type SimulatorReply,
} from './engine';
import { BankError, gatewayError } from './errors';
import { replyBody } from './reply';
import type { ApiCallCounts, SimulatorFaults } from './faults';
import type { SimulatorInfo } from './info';
import { COLLECTION_SCOPE, PAYMENT_QUERY_SCOPES, PAYMENT_SCOPES, type SimulatorAccount } from './model';
import { Notifier } from './notifier';
import type { PixReceived } from './pix/pix-model';
import { PIX_SCOPES } from './pix/pix-model';
import type { BankCredentials, ClientCertificateInfo } from './tokens';

export { QueryOperation, SimulatorPaths } from './engine';

export interface BankSimulatorOptions extends SimulatedBankOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** CA that issues the server and client certificates. @default a CA generated at start */
  readonly ca?: PemPair;
  /** Extra names and addresses for the server certificate. @default localhost, 127.0.0.1 and ::1 only */
  readonly hosts?: readonly string[];
  /** Folder for ca.crt, client.crt and client.key. @default a new temporary folder, removed by stop() */
  readonly dir?: string;
  /** Accounts the bank knows. @default one sample account */
  readonly accounts?: readonly SimulatorAccount[];
  /** Credentials the bank accepts. @default generated at start (printed by `simulate`) */
  readonly credentials?: BankCredentials;
  /** Extra CAs (PEM) the notifier trusts besides the public roots, for local receivers. @default none */
  readonly trustedCas?: readonly string[];
  /** The bank's delivery deadline. Shorten it in tests only. @default 10000 */
  readonly deliveryTimeoutMs?: number;
}

/** The sample account of a simulator started without `accounts`. */
export const SAMPLE_ACCOUNT: SimulatorAccount = SAMPLE_SIMULATOR_ACCOUNT;

const MAX_BODY_BYTES = 1024 * 1024;

function clientCertificate(req: IncomingMessage): ClientCertificateInfo {
  const socket = req.socket as TLSSocket;
  const cert = socket.getPeerCertificate();
  const presented = !!cert && Object.keys(cert).length > 0;
  const cn = presented ? cert.subject?.CN : undefined;
  return { presented, trusted: presented && socket.authorized, commonName: Array.isArray(cn) ? cn[0] : cn };
}

function defaultCredentials(account: SimulatorAccount): BankCredentials {
  return {
    collection: {
      apiKey: randomUUID(),
      username: account.beneficiario + account.cooperativa,
      password: randomBytes(9).toString('base64url'),
    },
    payments: {
      clientId: `simulator-client-${randomBytes(4).toString('hex')}`,
      clientSecret: randomBytes(18).toString('base64url'),
    },
    pix: defaultPixCredentials(),
  };
}

function defaultPixCredentials(): NonNullable<BankCredentials['pix']> {
  return {
    clientId: `simulator-pix-${randomBytes(4).toString('hex')}`,
    clientSecret: randomBytes(18).toString('base64url'),
  };
}

/** The lower-cased headers of a request, the first value of each. */
function requestHeaders(req: IncomingMessage): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]),
  );
}

/**
 * The bank's side, local and faithful to the specification and cdk-bank-webhooks/docs/bank-api.md (see
 * {@link SimulatorEngine}), served over HTTPS (TLS 1.2+) with its own CA, mutual TLS on the
 * payments token endpoint, and a notifier that delivers by the bank's rules in the background.
 */
export class BankSimulator {
  /** Starts a simulator; `stop()` it when done. */
  static async start(options: BankSimulatorOptions = {}): Promise<BankSimulator> {
    const simulator = new BankSimulator(options);
    const port = options.port ?? 0;
    const host = options.host ?? '127.0.0.1';
    try {
      await simulator.listen(port, host);
    } catch (error) {
      await simulator.stop();
      const code = (error as NodeJS.ErrnoException).code;
      const hint = code === 'EADDRINUSE' ? ' Pick another port (--port), or 0 for a free one.' : '';
      throw new Error(`The bank simulator cannot listen on ${host}:${port}: ${(error as Error).message}.${hint}`, {
        cause: error,
      });
    }
    return simulator;
  }

  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
  readonly caFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** The Pix application's client certificate (its common name the Pix client id) and key. */
  readonly pixClientCertPem: string;
  readonly pixClientKeyPem: string;
  readonly pixClientCertFile: string;
  readonly pixClientKeyFile: string;
  /** The certificate the provider presents on Pix callbacks (a receiver pins it); its key stays here. */
  readonly pixWebhookCertFile: string;
  readonly pixWebhookCertPem: string;
  readonly credentials: BankCredentials;
  readonly accounts: readonly SimulatorAccount[];

  private readonly server: Server;
  private readonly engine: SimulatorEngine;
  private readonly notifier: Notifier;
  private readonly trustedCas: string[];
  private readonly ownsDir: boolean;
  private readonly dir: string;
  private origin?: string;
  private controlClient?: BankSimulatorClient;

  private constructor(options: BankSimulatorOptions) {
    // Checked before any key or file is made.
    if (options.accounts?.length === 0)
      throw new Error(
        'The bank simulator needs at least one account: give accounts, or leave it out for the sample account.',
      );
    this.accounts = options.accounts ?? [SAMPLE_ACCOUNT];
    // Credentials given without a Pix client get one, shown by info like the rest.
    this.credentials = options.credentials
      ? { ...options.credentials, pix: options.credentials.pix ?? defaultPixCredentials() }
      : defaultCredentials(this.accounts[0]);
    this.trustedCas = [...(options.trustedCas ?? [])];
    let faults: () => SimulatorFaults = () => ({});
    this.notifier = new Notifier({
      trustedCas: () => this.trustedCas,
      deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000,
      faults: () => faults(),
      clientCertificate: () => pixWebhook,
    });
    this.engine = new SimulatorEngine({
      accounts: this.accounts,
      credentials: this.credentials,
      tokenLifetimeSeconds: options.tokenLifetimeSeconds,
      notifyPaymentReceived: options.notifyPaymentReceived,
      boletoNotificationShape: options.boletoNotificationShape,
      contractListShape: options.contractListShape,
      faults: options.faults,
      behaviour: options.behaviour,
      host: { info: () => this.info, deliveries: this.notifier, trustCa: (pem) => this.trustCa(pem) },
    });
    faults = () => this.engine.currentFaults;
    const ca = options.ca ?? createCertificateAuthority('cdk-bank-webhooks bank simulator CA');
    const server = issueCertificate(ca, {
      commonName: 'localhost',
      hosts: ['localhost', '127.0.0.1', '::1', ...(options.hosts ?? [])],
    });
    const client = issueCertificate(ca, { commonName: this.credentials.payments.clientId, client: true });
    const pixClient = issueCertificate(ca, { commonName: this.credentials.pix!.clientId, client: true });
    const pixWebhook = issueCertificate(ca, { commonName: 'webhook-pix.bank-simulator.local', client: true });
    this.pixWebhookCertPem = pixWebhook.certPem;
    this.pixClientCertPem = pixClient.certPem;
    this.pixClientKeyPem = pixClient.keyPem;
    this.caPem = ca.certPem;
    this.clientCertPem = client.certPem;
    this.clientKeyPem = client.keyPem;
    this.ownsDir = !options.dir;
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'bank-simulator-'));
    mkdirSync(this.dir, { recursive: true });
    this.caFile = join(this.dir, 'ca.crt');
    this.clientCertFile = join(this.dir, 'client.crt');
    this.clientKeyFile = join(this.dir, 'client.key');
    writeFileSync(this.caFile, this.caPem);
    writeFileSync(this.clientCertFile, this.clientCertPem);
    writeFileSync(this.clientKeyFile, this.clientKeyPem, { mode: 0o600 });
    this.pixClientCertFile = join(this.dir, 'pix-client.crt');
    this.pixClientKeyFile = join(this.dir, 'pix-client.key');
    this.pixWebhookCertFile = join(this.dir, 'pix-webhook.crt');
    writeFileSync(this.pixClientCertFile, pixClient.certPem);
    writeFileSync(this.pixClientKeyFile, pixClient.keyPem, { mode: 0o600 });
    writeFileSync(this.pixWebhookCertFile, pixWebhook.certPem);
    this.server = createServer(
      {
        key: server.keyPem,
        cert: server.certPem,
        ca: [this.caPem],
        requestCert: true,
        rejectUnauthorized: false,
        minVersion: 'TLSv1.2',
      },
      (req, res) => void this.handle(req, res),
    );
  }

  private listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address() as AddressInfo;
        // A wildcard address is reached through loopback, which the certificate names.
        const shown =
          address.address === '0.0.0.0'
            ? '127.0.0.1'
            : address.address === '::'
              ? '[::1]'
              : address.family === 'IPv6'
                ? `[${address.address}]`
                : address.address;
        this.origin = `https://${shown}:${address.port}`;
        resolve();
      });
    });
  }

  /** `https://127.0.0.1:<port>`: the `base_url` of the collection API. */
  get baseUrl(): string {
    if (!this.origin) throw new Error('The bank simulator is not listening yet: use BankSimulator.start().');
    return this.origin;
  }

  get info(): SimulatorInfo {
    return {
      baseUrl: this.baseUrl,
      registrationBaseUrl: this.baseUrl + SimulatorPaths.registrationBase,
      collectionTokenUrl: this.baseUrl + SimulatorPaths.collectionToken,
      paymentsTokenUrl: this.baseUrl + SimulatorPaths.paymentsToken,
      controlUrl: this.baseUrl + SimulatorPaths.control,
      pixBaseUrl: this.baseUrl + SimulatorPaths.pixApi,
      pixTokenUrl: this.baseUrl + SimulatorPaths.pixToken,
      pixClientCertFile: this.pixClientCertFile,
      pixClientKeyFile: this.pixClientKeyFile,
      pixWebhookCertFile: this.pixWebhookCertFile,
      pixKeys: this.engine.pix.keys,
      caFile: this.caFile,
      clientCertFile: this.clientCertFile,
      clientKeyFile: this.clientKeyFile,
      accounts: this.accounts,
      credentials: this.credentials,
      scopes: {
        collection: COLLECTION_SCOPE,
        payments: PAYMENT_SCOPES,
        paymentQueries: PAYMENT_QUERY_SCOPES,
        pix: PIX_SCOPES,
      },
    };
  }

  /** A typed client of the control API (works the same against `npx cdk-bank-webhooks simulate`). */
  get control(): BankSimulatorClient {
    this.controlClient ??= new BankSimulatorClient(this.baseUrl, this.caPem);
    return this.controlClient;
  }

  /** Trusts another CA for deliveries (a local receiver's). */
  trustCa(pem: string): void {
    if (!this.trustedCas.includes(pem)) this.trustedCas.push(pem);
  }

  /**
   * Changes a boleto and notifies, in this process (what `POST /control/boletos/{n}/{action}`
   * does, without an HTTPS call): for a load generator sharing the simulator's process, whose
   * control calls would otherwise compete with the deliveries it measures.
   */
  changeBoleto(nossoNumero: string, action: BoletoAction, input: BoletoChangeInput = {}): { notificationId: string } {
    return { notificationId: this.engine.bank.changeBoleto(nossoNumero, action, input).notification.id };
  }

  /** Queries and listings the bank has answered since it started (or was refused by a fault after the count). */
  queryCounts(): Readonly<Record<QueryOperation, number>> {
    return this.engine.queryCounts();
  }

  /** The Pix the provider holds for the account (what `GET /pix/{e2eid}` answers under its credentials), with their refunds. */
  pixHeld(): readonly PixReceived[] {
    return this.engine.pix.exportState().pix;
  }

  /** API calls answered per part, and how many were refused for the rate limit, since faults were last set. */
  apiCallCounts(): ApiCallCounts {
    return this.engine.apiCallCounts();
  }

  setFaults(faults: SimulatorFaults): void {
    this.engine.setFaults(faults);
  }

  /** The readings in force where the manual and clients differ. */
  get behaviour(): BankBehaviour {
    return this.engine.behaviour;
  }

  /** Changes some readings (checked; throws naming every problem); the rest stay. */
  setBehaviour(changes: Partial<BankBehaviour>): BankBehaviour {
    return this.engine.setBehaviour(changes);
  }

  /** Stops listening, abandons deliveries in flight, removes its temporary folder. */
  async stop(): Promise<void> {
    this.controlClient?.close();
    this.notifier.close();
    this.server.closeAllConnections();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let reply: SimulatorReply;
    try {
      const raw = await this.readBody(req);
      reply = await this.engine.handle({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: requestHeaders(req),
        body: raw,
        certificate: clientCertificate(req),
      });
    } catch (error) {
      // Only reading the body throws here (too large, or the connection dropped); the engine answers everything else.
      reply =
        error instanceof BankError
          ? { status: error.status, body: error.body }
          : { status: 400, body: { mensagem: `Simulator error: ${(error as Error).message}` } };
    }
    if (res.destroyed) return;
    const { body, contentType } = replyBody(reply);
    res.writeHead(reply.status, { ...(body && contentType ? { 'content-type': contentType } : {}), ...reply.headers });
    res.end(body);
  }

  private async readBody(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) throw gatewayError(413, 'Request body too large.');
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }
}

/** Reads a PEM file, with an error that names the file and the option. */
export function readPemFile(path: string, option: string): string {
  try {
    const pem = readFileSync(path, 'utf8');
    if (!pem.includes('-----BEGIN')) throw new Error('no PEM block in it');
    return pem;
  } catch (error) {
    throw new Error(`${option} ${path}: cannot read a PEM file (${(error as Error).message}).`, { cause: error });
  }
}
