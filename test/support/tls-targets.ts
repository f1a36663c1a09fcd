import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  createCertificateAuthority,
  createSelfSignedCertificate,
  issueCertificate,
  type PemPair,
} from '../../simulator/certificates';

/** A request a target received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The client certificate the caller presented (targets started with `clientCas`). */
  readonly clientCertificate?: {
    readonly commonName?: string;
    readonly fingerprint256: string;
    readonly authorized: boolean;
  };
}

export interface TargetAnswer {
  readonly status?: number;
  readonly delayMs?: number;
  readonly body?: string;
}

export interface TargetOptions {
  /** Certificate and key served. Omit for a plain-HTTP target. */
  readonly pair?: PemPair;
  /** Accept TLS 1.0/1.1 only (what the bank must refuse). @default false */
  readonly tls11Only?: boolean;
  /** Ask callers for a client certificate, checked against these CAs (PEM) and recorded, never required. @default none asked */
  readonly clientCas?: readonly string[];
  /** How to answer each request. @default 200 at once */
  readonly answer?: (request: ReceivedRequest) => TargetAnswer;
}

/** A receiving endpoint on 127.0.0.1 that records what it gets. */
export interface Target {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a receiving endpoint on loopback (port 0). */
export async function startTarget(options: TargetOptions = {}): Promise<Target> {
  const requests: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const socket = req.socket as TLSSocket;
      const peer = options.clientCas ? socket.getPeerCertificate() : undefined;
      const clientCertificate =
        peer && Object.keys(peer).length
          ? {
              commonName: Array.isArray(peer.subject?.CN) ? peer.subject.CN[0] : peer.subject?.CN,
              fingerprint256: peer.fingerprint256,
              authorized: socket.authorized,
            }
          : undefined;
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        clientCertificate,
      };
      requests.push(request);
      const answer = options.answer?.(request) ?? {};
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(answer.body ?? '{}');
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, answer.delayMs);
        timers.add(timer);
      } else send();
    });
  };
  const server: HttpServer = options.pair
    ? createHttpsServer(
        {
          key: options.pair.keyPem,
          cert: options.pair.certPem,
          ...(options.tls11Only
            ? { minVersion: 'TLSv1' as const, maxVersion: 'TLSv1.1' as const, ciphers: 'DEFAULT@SECLEVEL=0' }
            : {}),
          ...(options.clientCas ? { requestCert: true, rejectUnauthorized: false, ca: [...options.clientCas] } : {}),
        },
        listener,
      )
    : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.pair ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A CA standing for a receiver's certificate issuer, with a leaf for 127.0.0.1 and localhost. */
export interface ReceiverPki {
  readonly ca: PemPair;
  readonly leaf: PemPair;
  readonly selfSigned: PemPair;
}

export function makeReceiverPki(): ReceiverPki {
  const ca = createCertificateAuthority('test receiver CA');
  return {
    ca,
    leaf: issueCertificate(ca, { commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] }),
    selfSigned: createSelfSignedCertificate(['localhost', '127.0.0.1']),
  };
}
