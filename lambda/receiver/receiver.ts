import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorSummary, type Log } from '../shared/runtime';
import { abortingAfter } from '../shared/retry';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { encodeStoredNotification } from '../store/stored-notification';
import { X509Certificate } from 'node:crypto';
import {
  normalizedDn,
  type PixClientCertificatePins,
  ReceiverDefaults,
  ReceiverMetric,
  type ReceiverSettings,
  type Route,
} from '../../contracts/receiver';
import {
  bodyShape,
  BodyShape,
  type CertificateIntake,
  intakeOf,
  ROOT_INTAKE,
  RouteCredential,
  type RouteIntake,
} from '../bank/intakes';
import type { TokenStage } from '../shared/secret-tokens';
import { findHeader, tokenMatches } from '../shared/token-check';
import { currentTraceId, inSpan, SpanKind, startSpan, traceparentAttribute } from '../shared/telemetry';
import type { TokenCache } from './token-cache';

/** Counts one occurrence of a metric for a route; `details` are written with it (not dimensions). */
export type CountMetric = (name: string, route: Route, details?: Record<string, string>, value?: number) => void;

export interface ReceiverDeps {
  readonly settings: ReceiverSettings;
  readonly sqs: SQSClient;
  readonly tokens: TokenCache;
  readonly logger: Log;
  readonly count: CountMetric;
  readonly now?: () => Date;
  /**
   * Milliseconds left before the function times out (Lambda's context). Every wait (the token
   * secrets, SQS) ends early enough to answer 503, with its ERROR line, before the timeout, where
   * API Gateway would answer 502 with no line and no metric. @default no limit but the budgets
   */
  readonly remainingTimeMs?: () => number;
}

/** Rejects with a readable error when `promise` has not settled by `deadline` (epoch ms). */
async function beforeDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  const left = deadline - Date.now();
  if (!Number.isFinite(left)) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`${what} took longer than the ${Math.max(0, left)} ms left before the function's timeout`)),
      Math.max(0, left),
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };

function respond(statusCode: number, body: Record<string, unknown>): APIGatewayProxyResult {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

/**
 * The intake of the route a request came on, and whether it is the API's bare URL (the
 * validation call of the provider whose API has one: the Pix API's).
 */
function routeOf(event: APIGatewayProxyEvent): { intake: RouteIntake; atRoot: boolean } | undefined {
  const path = (event.resource || event.path || '').replace(/^\/+|\/+$/g, '');
  if (path === '' && event.resource === '/') return ROOT_INTAKE && { intake: ROOT_INTAKE, atRoot: true };
  const intake = intakeOf(path);
  return intake && { intake, atRoot: false };
}

/** A PEM certificate's SHA-256 fingerprint (hex, lower case), or undefined when it is not one. */
function fingerprintOf(pem: string | undefined): string | undefined {
  if (!pem) return undefined;
  try {
    return new X509Certificate(pem).fingerprint256.replace(/:/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

/** A PEM certificate's issuer DN in its normal form, or undefined when it is no certificate. */
function issuerOf(pem: string | undefined): string | undefined {
  if (!pem) return undefined;
  try {
    return normalizedDn(new X509Certificate(pem).issuer);
  } catch {
    return undefined;
  }
}

/** Why a route known by its client certificate refuses the request's (the stack pins the provider's), or undefined. */
function certificateRefusal(
  event: APIGatewayProxyEvent,
  pins: PixClientCertificatePins | undefined,
): string | undefined {
  if (!pins) return undefined;
  const cert = event.requestContext?.identity?.clientCert;
  if (!cert)
    return 'no client certificate (is the Pix API behind its mutual-TLS domain, with the default endpoint disabled?)';
  const fingerprint = fingerprintOf(cert.clientCertPem);
  if (fingerprint && pins.fingerprints.includes(fingerprint)) return undefined;
  if (cert.subjectDN && pins.subjects.includes(cert.subjectDN)) {
    if (!pins.issuers) return undefined;
    const issuer = issuerOf(cert.clientCertPem);
    if (issuer && pins.issuers.includes(issuer)) return undefined;
    return 'a client certificate with a pinned subject from an issuer the stack does not pin (another CA of the truststore)';
  }
  return 'a client certificate the stack does not pin (neither its subject nor its fingerprint)';
}

/** Checked in this order: AWSPENDING only holds a value while a rotation is under way. */
const TOKEN_STAGES: readonly TokenStage[] = ['AWSCURRENT', 'AWSPENDING'];

/**
 * Whether `presented` is the secret's current value or, during a rotation, its pending one.
 * AWSPENDING is read only when the current value does not match, so the bank's calls cost one
 * Secrets Manager read per cache period, not two, and a cold start waits for one read.
 */
async function isAuthenticated(presented: string | undefined, secretArn: string, tokens: TokenCache): Promise<boolean> {
  if (!presented) return false;
  for (const stage of TOKEN_STAGES) {
    if (tokenMatches(presented, await tokens.get(secretArn, stage))) return true;
  }
  // A token rotated moments ago may not be cached yet: look once more (rate-limited by the cache).
  const refreshed = await Promise.all(TOKEN_STAGES.map((stage) => tokens.refreshAfterMismatch(secretArn, stage)));
  return refreshed.some((values) => values !== undefined && tokenMatches(presented, values));
}

/**
 * Handles one bank notification: checks the route's credential as its family's intake says (a
 * token; the Pix route: the provider's pinned client certificate, when the stack pins one),
 * stores the raw request in SQS, and answers 200 only once SendMessage has succeeded.
 *
 * - 401: the token is missing or wrong; nothing is stored.
 * - 403 (Pix): no client certificate, or one the stack does not pin; nothing is stored.
 * - 200 (Pix) for the provider's validation call (the bare URL, or a body with no `pix` array): nothing is stored.
 * - 400 (Pix without mutual TLS): a body that is not a Pix callback (a JSON object with a `pix` array of objects); nothing is stored.
 * - 413: the body is larger than the limit; nothing is stored.
 * - 503: the token secrets could not be read, or SQS did not take the message within the budget.
 * - 200: the request is durably stored, whatever its body holds (the processor judges it).
 */
export async function handleNotification(
  event: APIGatewayProxyEvent,
  deps: ReceiverDeps,
): Promise<APIGatewayProxyResult> {
  const { settings, logger, count } = deps;
  // Time to answer 503 with its ERROR line, kept before the function's timeout.
  const deadline = Date.now() + (deps.remainingTimeMs?.() ?? Infinity) - ReceiverDefaults.answerMarginMs;
  const requestId = event.requestContext?.requestId ?? 'unknown';
  const sourceIp = event.requestContext?.identity?.sourceIp ?? undefined;
  const found = routeOf(event);
  if (!found) {
    logger.warn('Request for an unknown route', { requestId, resource: event.resource, path: event.path });
    return respond(404, { message: 'Not found' });
  }
  const { intake, atRoot } = found;
  const route = intake.route;
  if (intake.credential === RouteCredential.CLIENT_CERTIFICATE) {
    // No credential travels with the request: the provider is known by its client certificate.
    const refused = certificateRefusal(event, intake.pins(settings));
    if (refused) {
      count(ReceiverMetric.CERTIFICATE_REFUSED, route);
      logger.warn(`Refused a ${intake.provider} callback: the client certificate is not the provider's`, {
        requestId,
        sourceIp,
        reason: refused,
        subject: event.requestContext?.identity?.clientCert?.subjectDN,
      });
      return respond(403, { message: 'Forbidden' });
    }
    reportCertificateDaysLeft(event, route, deps);
    if (atRoot) return validationCall(intake, requestId, deps);
    return storeNotification(event, intake, deps, requestId, deadline);
  }
  const { header: headerName, secretArn } = intake.token(settings);
  const presented = findHeader(event.headers, headerName);
  // The common case, a fresh current value that matches, takes no promise and no timer.
  const current = deps.tokens.peek(secretArn, TOKEN_STAGES[0]);
  const check = startSpan('check', { 'bank.route': route });
  let authenticated = current !== undefined && tokenMatches(presented, current);
  if (!authenticated) {
    try {
      authenticated = await beforeDeadline(
        isAuthenticated(presented, secretArn, deps.tokens),
        deadline,
        'Reading the token secret',
      );
    } catch (error) {
      check.end();
      count(ReceiverMetric.TOKEN_LOAD_FAILED, route);
      logger.error('Could not load the route token from Secrets Manager; answering 503', {
        requestId,
        route,
        error: errorSummary(error),
      });
      return respond(503, { message: 'Temporarily unable to accept the notification', requestId });
    }
  }
  check.setAttribute('bank.authenticated', authenticated);
  check.end();
  if (!authenticated) {
    count(ReceiverMetric.UNAUTHORIZED, route);
    // Never log the presented value: it may be a real token sent to the wrong route.
    logger.warn('Rejected a request without a valid token', {
      requestId,
      route,
      sourceIp,
      header: headerName,
      reason: presented ? 'token mismatch' : 'header missing or empty',
    });
    return respond(401, { message: 'Unauthorized' });
  }
  return storeNotification(event, intake, deps, requestId, deadline);
}

/**
 * The days left on the client certificate the provider presented (API Gateway's `validity.notAfter`),
 * as a metric an alarm watches a month ahead: nothing else warns that the pinned certificate and
 * the truststore need the provider's next one.
 */
function reportCertificateDaysLeft(event: APIGatewayProxyEvent, route: Route, deps: ReceiverDeps): void {
  const notAfter = Date.parse(event.requestContext?.identity?.clientCert?.validity?.notAfter ?? '');
  if (!Number.isFinite(notAfter)) return;
  const now = deps.now?.().getTime() ?? Date.now();
  deps.count(ReceiverMetric.CERTIFICATE_DAYS_LEFT, route, undefined, Math.floor((notAfter - now) / 86_400_000));
}

/** The provider's validation call (the Pix provider's): answered 200, counted, nothing stored. */
function validationCall(intake: CertificateIntake, requestId: string, deps: ReceiverDeps): APIGatewayProxyResult {
  deps.count(ReceiverMetric.VALIDATION_CALLS, intake.route, {
    message: `${intake.provider} validation call answered`,
    requestId,
  });
  return respond(200, { status: 'ok', requestId });
}

/** Stores an authenticated request's raw body in SQS, answering 200 only once SendMessage succeeded. */
async function storeNotification(
  event: APIGatewayProxyEvent,
  intake: RouteIntake,
  deps: ReceiverDeps,
  requestId: string,
  deadline: number,
): Promise<APIGatewayProxyResult> {
  const { settings, logger, count } = deps;
  const route = intake.route;
  const sourceIp = event.requestContext?.identity?.sourceIp ?? undefined;
  // A text body stays text: its UTF-8 is counted, read and stored without a copy to bytes and back.
  const body = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64') : (event.body ?? '');
  const bodyBytes = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  if (bodyBytes > settings.maxBodyBytes) {
    count(ReceiverMetric.TOO_LARGE, route);
    logger.error(
      'Rejected an authenticated notification larger than the body limit; the bank will mark it NÃO ENTREGUE',
      {
        requestId,
        route,
        sourceIp,
        bodyBytes,
        maxBodyBytes: settings.maxBodyBytes,
      },
    );
    return respond(413, { message: 'Payload too large', maxBodyBytes: settings.maxBodyBytes });
  }
  // A body the route's family reads as the provider's validation call (a Pix body with no `pix` array): nothing to store.
  const byCertificate = intake.credential === RouteCredential.CLIENT_CERTIFICATE ? intake : undefined;
  const shape = bodyShape(intake, body);
  if (byCertificate && shape === BodyShape.VALIDATION) return validationCall(byCertificate, requestId, deps);
  // Where nothing authenticates the sender (the Pix route without mutual TLS) anyone can post:
  // only a notification's shape is stored (a compressed body is stored for the processor to
  // judge). Behind mutual TLS, or a token, every body is stored.
  const contentEncoding = findHeader(event.headers, 'Content-Encoding');
  const encoded = (contentEncoding ?? 'identity').trim().toLowerCase() !== 'identity';
  if (byCertificate && shape === BodyShape.OTHER && !byCertificate.pins(settings) && !encoded) {
    count(ReceiverMetric.NOT_A_PIX_CALLBACK, route);
    logger.warn(
      `Refused a body on the ${byCertificate.provider} route that is not a ${byCertificate.provider} callback (no mutual TLS: anyone can post here); nothing stored`,
      { requestId, sourceIp, bodyBytes },
    );
    return respond(400, { message: `Not a ${byCertificate.provider} callback: ${byCertificate.shapeRule}`, requestId });
  }

  const messageBody = encodeStoredNotification(
    {
      route,
      receivedAt: (deps.now?.() ?? new Date()).toISOString(),
      requestId,
      sourceIp,
      contentType: findHeader(event.headers, 'Content-Type'),
      contentEncoding,
      ...currentTraceId(),
    },
    body,
  );
  const enqueueBudgetMs = Math.min(settings.enqueueBudgetMs, deadline - Date.now());
  try {
    if (enqueueBudgetMs < ReceiverDefaults.minEnqueueMs)
      throw new Error(
        `only ${Math.max(0, Math.round(enqueueBudgetMs))} ms were left before the function's timeout to store it`,
      );
    // The processor's span for this message continues the trace from here (its traceparent attribute).
    const sent = await inSpan(
      'enqueue',
      { 'bank.route': route },
      () =>
        abortingAfter(enqueueBudgetMs, (abortSignal) =>
          deps.sqs.send(
            new SendMessageCommand({
              QueueUrl: settings.queueUrl,
              MessageBody: messageBody,
              MessageAttributes: { route: { DataType: 'String', StringValue: route }, ...traceparentAttribute() },
            }),
            { abortSignal },
          ),
        ),
      { kind: SpanKind.PRODUCER },
    );
    // The count is the log record: one line per stored notification (see metricCounter).
    count(ReceiverMetric.STORED, route, {
      message: 'Notification stored',
      requestId,
      messageId: sent.MessageId ?? '',
      bodyBytes: String(bodyBytes),
    });
    return respond(200, { status: 'received', requestId });
  } catch (error) {
    count(ReceiverMetric.ENQUEUE_FAILED, route);
    logger.error('Could not store an authenticated notification in SQS within the budget; answering 503', {
      requestId,
      route,
      sourceIp,
      enqueueBudgetMs: Math.max(0, Math.round(enqueueBudgetMs)),
      error: errorSummary(error),
    });
    return respond(503, { message: 'Temporarily unable to store the notification', requestId });
  }
}
