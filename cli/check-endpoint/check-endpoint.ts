import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import {
  checkServerIdentity,
  connect,
  rootCertificates,
  type DetailedPeerCertificate,
  type SecureVersion,
} from 'node:tls';
import { describeCallError, isSelfSigned } from '../../simulator/https-client';
import {
  bankDateTime,
  boletoEventBody,
  defaultPaymentDetails,
  paymentBody,
  PaymentStatus,
} from '../../simulator/model';
import { deliverNotification } from '../../simulator/notifier';
import { PAYMENTS_TOKEN_HEADER } from '../../contracts/receiver';

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

export interface CheckRow {
  readonly check: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export interface CheckEndpointOptions {
  /** The receiving endpoint, as it would be registered with the bank. */
  readonly url: string;
  /** The token the bank would send. @default none: the notification goes without one */
  readonly token?: string;
  /** Header that carries the token. @default 'Authorization' */
  readonly header?: string;
  /** Extra CAs (PEM) to trust, for endpoints with a local CA. @default public roots only */
  readonly caPems?: readonly string[];
  /** The deadline. @default 10000 (the bank's) */
  readonly timeoutMs?: number;
  /** Which notification to send. @default 'boleto' when the URL path ends in /boleto, else 'payment' */
  readonly kind?: 'payment' | 'boleto';
}

/** A realistic notification, with ids that say where it came from. */
export function sampleNotification(kind: 'payment' | 'boleto'): unknown {
  const now = Date.now();
  if (kind === 'boleto') {
    const boleto = {
      nossoNumero: '9' + String(now).slice(-8),
      cooperativa: '0101',
      posto: '02',
      beneficiario: '54321',
      valor: '1.00',
      dataVencimento: new Date(now).toISOString().slice(0, 10),
      dataEmissao: new Date(now).toISOString().slice(0, 10),
      situacao: 'LIQUIDADO',
    };
    return boletoEventBody(boleto, {
      movimento: 'LIQUIDACAO_PIX',
      at: bankDateTime(now),
      valor: '1.00',
      sendIdTituloEmpresa: false,
      idEventoWebhook: `check-endpoint-${randomUUID()}`,
    });
  }
  const idTransacao = `check-endpoint-${randomUUID()}`;
  return paymentBody({
    kind: 'pix',
    idTransacao,
    numericId: 0,
    conta: '0',
    cooperativa: '0',
    valor: '1.00',
    createdAt: bankDateTime(now),
    status: PaymentStatus.SETTLED,
    dataPagamento: bankDateTime(now),
    details: defaultPaymentDetails('pix', idTransacao),
  });
}

interface TlsProbe {
  readonly protocol: string | null;
  readonly authorized: boolean;
  readonly authorizationError?: string;
  readonly peer: DetailedPeerCertificate;
}

function probeTls(url: URL, trusted: readonly string[], timeoutMs: number, version?: SecureVersion): Promise<TlsProbe> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port: Number(url.port || 443),
      servername: isIP(host) ? undefined : host,
      ca: [...rootCertificates, ...trusted],
      minVersion: version ?? 'TLSv1.2',
      maxVersion: version,
      rejectUnauthorized: false,
      // Identity is judged separately below, so a name mismatch is reported by name.
      checkServerIdentity: () => undefined,
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no TLS handshake within ${timeoutMs} ms`), { code: 'TIMEOUT' }));
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const result = {
        protocol: socket.getProtocol(),
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : undefined,
        peer: socket.getPeerCertificate(true),
      };
      socket.end();
      resolve(result);
    });
    socket.once('error', (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

/** A subject or issuer field as text (Node gives a list when the field repeats). */
const field = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

function certificateVerdict(url: URL, probe: TlsProbe): CheckRow {
  const subject = field(probe.peer.subject?.CN) ?? '(no CN)';
  if (isSelfSigned(probe.peer)) {
    return {
      check: 'Certificate',
      status: 'fail',
      detail: `self-signed certificate (CN=${subject}): the bank refuses self-signed certificates; use one issued by a public CA (API Gateway custom domains use ACM)`,
    };
  }
  if (!probe.authorized) {
    return {
      check: 'Certificate',
      status: 'fail',
      detail: `${describeCallError({ code: probe.authorizationError })}; for a local CA, pass it with --ca FILE`,
    };
  }
  const identity = checkServerIdentity(url.hostname.replace(/^\[|\]$/g, ''), probe.peer);
  if (identity)
    return { check: 'Certificate', status: 'fail', detail: `not valid for ${url.hostname}: ${identity.message}` };
  const issuer = field(probe.peer.issuer?.CN) ?? field(probe.peer.issuer?.O) ?? 'unknown issuer';
  return {
    check: 'Certificate',
    status: 'pass',
    detail: `CN=${subject}, issued by ${issuer}, valid until ${new Date(probe.peer.valid_to).toISOString().slice(0, 10)}`,
  };
}

/**
 * Judges a receiving endpoint by the bank's rules (specification, section 1): HTTPS, a
 * certificate chain that is valid and not self-signed, TLS 1.2, a notification with the token
 * answered 200 within the deadline, and (a warning only) the same refused without the token.
 */
export async function checkEndpoint(options: CheckEndpointOptions): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  const timeoutMs = options.timeoutMs ?? 10_000;
  const trusted = options.caPems ?? [];
  const skipRest = (reason: string) => {
    for (const check of ['TLS 1.2', 'Certificate', 'Notification answered 200', 'Refused without token']) {
      if (!rows.some((row) => row.check === check)) rows.push({ check, status: 'skip', detail: reason });
    }
    return rows;
  };
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    rows.push({ check: 'HTTPS', status: 'fail', detail: `not a valid URL: ${options.url}` });
    return skipRest('no valid URL');
  }
  if (url.protocol !== 'https:') {
    rows.push({
      check: 'HTTPS',
      status: 'fail',
      detail: `${url.protocol.replace(':', '').toUpperCase()}: the bank only delivers over HTTPS`,
    });
    return skipRest('not HTTPS');
  }
  rows.push({ check: 'HTTPS', status: 'pass', detail: url.origin });

  let defaultProbe: TlsProbe;
  try {
    defaultProbe = await probeTls(url, trusted, timeoutMs);
  } catch (error) {
    rows.push({ check: 'TLS 1.2', status: 'fail', detail: `no TLS 1.2+ handshake: ${describeCallError(error)}` });
    return skipRest('no TLS connection');
  }
  try {
    const tls12 = await probeTls(url, trusted, timeoutMs, 'TLSv1.2');
    rows.push({
      check: 'TLS 1.2',
      status: 'pass',
      detail: `TLS 1.2 negotiable; ${defaultProbe.protocol ?? 'unknown'} negotiated by default (${tls12.protocol ?? 'unknown'} when limited to 1.2)`,
    });
  } catch (error) {
    rows.push({
      check: 'TLS 1.2',
      status: 'fail',
      detail: `TLS 1.2 not accepted (${defaultProbe.protocol ?? 'unknown'} only): ${describeCallError(error)}`,
    });
  }
  const certificate = certificateVerdict(url, defaultProbe);
  rows.push(certificate);

  const kind = options.kind ?? (/\/boleto\/?$/.test(url.pathname) ? 'boleto' : 'payment');
  const header = options.header ?? PAYMENTS_TOKEN_HEADER;
  const insecure = certificate.status !== 'pass';
  const caveat = insecure ? ' (sent past the certificate problem above, which alone stops the bank)' : '';
  const withToken = await deliverNotification({
    url: url.href,
    body: sampleNotification(kind),
    authHeader: options.token ? { name: header, value: options.token } : undefined,
    trustedCas: trusted,
    timeoutMs,
    insecure,
  });
  const sent = `a ${kind} notification${options.token ? ` with ${header}` : ' without a token (none given)'}`;
  rows.push(
    withToken.delivered
      ? {
          check: 'Notification answered 200',
          status: 'pass',
          detail: `${sent}: HTTP 200 in ${withToken.durationMs} ms (deadline ${timeoutMs} ms)${caveat}`,
        }
      : {
          check: 'Notification answered 200',
          status: 'fail',
          detail: `${sent}: ${withToken.reason}; the bank marks it "NÃO ENTREGUE"${caveat}`,
        },
  );

  if (!options.token) {
    rows.push({
      check: 'Refused without token',
      status: 'warn',
      detail: 'not checked: pass --token to check that calls without it are refused',
    });
    return rows;
  }
  const without = await deliverNotification({
    url: url.href,
    body: sampleNotification(kind),
    trustedCas: trusted,
    timeoutMs,
    insecure,
  });
  if (without.status === 401 || without.status === 403) {
    rows.push({ check: 'Refused without token', status: 'pass', detail: `HTTP ${without.status} without ${header}` });
  } else if (without.delivered) {
    rows.push({
      check: 'Refused without token',
      status: 'warn',
      detail: `answered 200 without ${header}: anyone who knows the URL can post notifications`,
    });
  } else {
    rows.push({
      check: 'Refused without token',
      status: 'warn',
      detail: `expected 401 or 403 without ${header}, got: ${without.reason}`,
    });
  }
  return rows;
}

/** The rows as an aligned plain-text table with a summary line. */
export function formatCheckTable(rows: readonly CheckRow[]): string {
  const width = Math.max(5, ...rows.map((row) => row.check.length));
  const lines = [
    `${'CHECK'.padEnd(width)}  RESULT  DETAIL`,
    ...rows.map((row) => `${row.check.padEnd(width)}  ${row.status.toUpperCase().padEnd(6)}  ${row.detail}`),
  ];
  const count = (status: CheckStatus) => rows.filter((row) => row.status === status).length;
  lines.push(
    '',
    `${count('pass')} passed, ${count('fail')} failed, ${count('warn')} warning${count('warn') === 1 ? '' : 's'}, ${count('skip')} skipped`,
  );
  return lines.join('\n');
}
