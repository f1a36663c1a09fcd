import { type Duration, Stack, Token } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import {
  DEFAULT_PIX_PATHS,
  DEFAULT_PIX_SCOPES,
  PIX_CONNECTION_ENV,
  PixBasicCredentials,
  PixConnectionDefaults,
  type PixConnectionSettings,
  PixGrantTypePlacement,
  PixOperation,
} from '../../../contracts/pix-connection';
import { functionUrlProps } from '../../core/function-url';
import { checkSecretNamed, isHttpsUrl, isWholeNumberIn, type PropsValidation } from '../../core/props-validation';

/**
 * Each Pix API operation's path under the base URL, with its version, for a provider that differs
 * from the standard's (this bank reads charges under `/api/v3`). An operation left out keeps its
 * default.
 */
export interface PixOperationPaths {
  /** `GET` of one Pix received, with `{e2eid}`. @default '/api/v2/pix/{e2eid}' */
  readonly pixQuery?: string;
  /** `GET` of the Pix received in a window. @default '/api/v2/pix' */
  readonly pixListing?: string;
  /** `GET` of one refund, with `{e2eid}` and `{id}`. @default '/api/v2/pix/{e2eid}/devolucao/{id}' */
  readonly refundQuery?: string;
  /** `GET` of an immediate charge, with `{txid}`. @default '/api/v3/cob/{txid}' */
  readonly cobQuery?: string;
  /** `GET` of a charge with a due date, with `{txid}`. @default '/api/v2/cobv/{txid}' */
  readonly cobvQuery?: string;
  /** `GET` of a recurring charge (Pix Automático), with `{txid}`. @default '/api/v2/cobr/{txid}' */
  readonly cobrQuery?: string;
  /** `PUT` of a key's webhook, with `{chave}`. @default '/api/v2/webhook/{chave}' */
  readonly webhookPut?: string;
  /** `GET` of a key's webhook, with `{chave}`. @default '/api/v2/webhook/{chave}' */
  readonly webhookGet?: string;
  /** `DELETE` of a key's webhook, with `{chave}`. @default '/api/v2/webhook/{chave}' */
  readonly webhookDelete?: string;
  /** `GET` of a recurrence (Pix Automático), with `{idRec}`. @default '/api/v2/rec/{idRec}' */
  readonly recQuery?: string;
  /** `GET` of the recurrences created in a window. @default '/api/v2/rec' */
  readonly recListing?: string;
  /** `GET` of the recurring charges created in a window. @default '/api/v2/cobr' */
  readonly cobrListing?: string;
  /** `GET` of the immediate charges created in a window (bulk verification at a peak). @default '/api/v3/cob' */
  readonly cobListing?: string;
  /** `GET` of the charges with a due date created in a window (bulk verification at a peak). @default '/api/v2/cobv' */
  readonly cobvListing?: string;
  /** `PUT` of the account's webhook of recurrences. @default '/api/v2/webhookrec' */
  readonly webhookRecPut?: string;
  /** `GET` of the account's webhook of recurrences. @default '/api/v2/webhookrec' */
  readonly webhookRecGet?: string;
  /** `DELETE` of the account's webhook of recurrences. @default '/api/v2/webhookrec' */
  readonly webhookRecDelete?: string;
  /** `PUT` of the account's webhook of recurring charges. @default '/api/v2/webhookcobr' */
  readonly webhookCobrPut?: string;
  /** `GET` of the account's webhook of recurring charges. @default '/api/v2/webhookcobr' */
  readonly webhookCobrGet?: string;
  /** `DELETE` of the account's webhook of recurring charges. @default '/api/v2/webhookcobr' */
  readonly webhookCobrDelete?: string;
}

/** Each Pix API operation's scopes, for a provider that wants others than the standard's. An operation left out keeps its default. */
export interface PixOperationScopes {
  /** @default ['pix.read'] */
  readonly pixQuery?: string[];
  /** @default ['pix.read'] */
  readonly pixListing?: string[];
  /** @default ['pix.read'] */
  readonly refundQuery?: string[];
  /** @default ['cob.read'] */
  readonly cobQuery?: string[];
  /** @default ['cobv.read'] */
  readonly cobvQuery?: string[];
  /** @default ['cobr.read'] */
  readonly cobrQuery?: string[];
  /** @default ['webhook.write'] */
  readonly webhookPut?: string[];
  /** @default ['webhook.read'] */
  readonly webhookGet?: string[];
  /** @default ['webhook.write'] */
  readonly webhookDelete?: string[];
  /** @default ['rec.read'] */
  readonly recQuery?: string[];
  /** @default ['rec.read'] */
  readonly recListing?: string[];
  /** @default ['cobr.read'] */
  readonly cobrListing?: string[];
  /** @default ['cob.read'] */
  readonly cobListing?: string[];
  /** @default ['cobv.read'] */
  readonly cobvListing?: string[];
  /** @default ['webhookrec.write'] */
  readonly webhookRecPut?: string[];
  /** @default ['webhookrec.read'] */
  readonly webhookRecGet?: string[];
  /** @default ['webhookrec.write'] */
  readonly webhookRecDelete?: string[];
  /** @default ['webhookcobr.write'] */
  readonly webhookCobrPut?: string[];
  /** @default ['webhookcobr.read'] */
  readonly webhookCobrGet?: string[];
  /** @default ['webhookcobr.write'] */
  readonly webhookCobrDelete?: string[];
}

/**
 * How to reach a provider's standard Pix API (the Central Bank's "API Pix", https://github.com/bacen/pix-api): apart
 * from the bank's collection and payments connection, with its own application, credentials and
 * client certificate.
 */
export interface PixConnectionProps {
  /** The Pix API's origin, such as `https://api-pix.sicredi.com.br` (the paths carry `/api/v2`). HTTPS only. */
  readonly baseUrl: string;
  /**
   * Secret with the Pix application's credentials as JSON: `clientId`, `clientSecret`,
   * `clientCertificate` and `clientKey` (PEM; every call is over mutual TLS), optionally
   * `caCertificates` (PEM). See cdk-bank-webhooks/docs/bank-api.md.
   */
  readonly credentials: secretsmanager.ISecret;
  /**
   * The token endpoint (client_credentials, HTTP Basic, over mutual TLS).
   * @default `${baseUrl}/oauth/token`
   */
  readonly tokenUrl?: string;
  /**
   * Where the token request carries `grant_type`: this bank refuses it in the query string since
   * 2026-06.
   * @default PixGrantTypePlacement.BODY
   */
  readonly grantType?: PixGrantTypePlacement;
  /**
   * How the token request's HTTP Basic header writes the client id and secret: form-encoded first,
   * as RFC 6749 section 2.3.1 says, or as they are, as several providers' public clients send them.
   * Matters only when the id or the secret holds a character form-encoding changes (`+ / = % @ :`...).
   * @default PixBasicCredentials.FORM_ENCODED
   */
  readonly basicCredentials?: PixBasicCredentials;
  /** Paths that differ from the defaults. @default the standard's, charges under /api/v3 */
  readonly paths?: PixOperationPaths;
  /** Scopes that differ from the standard's. @default the standard's */
  readonly scopes?: PixOperationScopes;
  /** Deadline of one HTTP call. @default Duration.seconds(5) */
  readonly callTimeout?: Duration;
  /**
   * The Pix API is a BankSandbox's (`BankSandbox.pixConnection` sets it): the credentials may hold
   * no client certificate, since a function URL asks for none. A PRODUCTION receiver refuses it.
   * @default false
   */
  readonly simulated?: boolean;
}

/** The placeholders an operation's path must hold: those of its default path. */
const placeholdersOf = (op: PixOperation): string[] => DEFAULT_PIX_PATHS[op].match(/\{\w+\}/g) ?? [];
const PATH = /^(\/[A-Za-z0-9._~-]+|\/\{(?:e2eid|id|txid|chave|idRec)\})+$/;
const SCOPE = /^[A-Za-z0-9._:-]+$/;

/** Checks a Pix connection's props, every problem at once, under `prefix`. */
export function validatePixConnection(v: PropsValidation, props: PixConnectionProps | undefined, prefix: string): void {
  if (!props) return;
  for (const [key, value] of [
    ['baseUrl', props.baseUrl],
    ['tokenUrl', props.tokenUrl],
  ] as const) {
    if (value === undefined || Token.isUnresolved(value)) continue;
    v.check(
      isHttpsUrl(value),
      `${prefix}.${key}`,
      `must be an https URL without query or fragment (the Pix API is only reached over HTTPS, with mutual TLS), got "${value}"`,
    );
  }
  if (props.baseUrl !== undefined && !Token.isUnresolved(props.baseUrl) && isHttpsUrl(props.baseUrl)) {
    v.check(
      new URL(props.baseUrl).pathname === '/',
      `${prefix}.baseUrl`,
      `must be the API's origin without a path (the paths carry their version, such as /api/v2), got "${props.baseUrl}"`,
    );
  }
  checkSecretNamed(v, props.credentials, `${prefix}.credentials`);
  for (const op of Object.values(PixOperation)) {
    const path = props.paths?.[op];
    if (path !== undefined) {
      const placeholders = placeholdersOf(op);
      const missing = placeholders.filter((p) => !path.includes(p));
      v.check(
        PATH.test(path) && !path.split('/').includes('..') && missing.length === 0,
        `${prefix}.paths.${op}`,
        `must be a path such as ${DEFAULT_PIX_PATHS[op]} (segments of letters, digits and ._~-, ${placeholders.length ? `holding ${placeholders.join(' and ')}` : 'no placeholder'}), got "${path}"`,
      );
    }
    const scopes = props.scopes?.[op];
    if (scopes !== undefined)
      v.check(
        scopes.length > 0 && scopes.every((s) => SCOPE.test(s)),
        `${prefix}.scopes.${op}`,
        `must be one or more scopes (letters, digits and ._:-), got ${JSON.stringify(scopes)}`,
      );
  }
  v.checkNumber(
    props.callTimeout?.toMilliseconds(),
    `${prefix}.callTimeout`,
    isWholeNumberIn(1_000, 30_000),
    'must be from 1 to 30 seconds',
  );
}

/**
 * Checks that a PRODUCTION receiver's Pix API is a real provider's by what it is: a Lambda function
 * URL is a BankSandbox, never a provider.
 */
export function checkRealPixProvider(
  v: PropsValidation,
  scope: Construct,
  props: PixConnectionProps,
  prefix: string,
): void {
  v.check(
    props.simulated !== true,
    `${prefix}.simulated`,
    "is true (a BankSandbox's Pix API) on a PRODUCTION receiver: production verifies Pix against the real provider. Use the sandbox from a NON_PRODUCTION stack",
  );
  for (const prop of functionUrlProps(scope, { baseUrl: props.baseUrl, tokenUrl: props.tokenUrl })) {
    v.check(
      false,
      `${prefix}.${prop}`,
      "points at a Lambda function URL (a BankSandbox's, or a *.lambda-url.<region>.on.aws host), which is never a Pix provider: a PRODUCTION receiver verifies Pix against the real provider only. Use the sandbox from a NON_PRODUCTION stack",
    );
  }
}

/** The settings a Pix connection resolves to: only what differs from the defaults (a function's environment holds 4 KB in all). */
export function pixConnectionSettings(props: PixConnectionProps): PixConnectionSettings {
  const paths: Partial<Record<PixOperation, string>> = {};
  const scopes: Partial<Record<PixOperation, string>> = {};
  for (const op of Object.values(PixOperation)) {
    const path = props.paths?.[op];
    if (path !== undefined && path !== DEFAULT_PIX_PATHS[op]) paths[op] = path;
    const scope = props.scopes?.[op]?.join(' ');
    if (scope !== undefined && scope !== DEFAULT_PIX_SCOPES[op]) scopes[op] = scope;
  }
  const base = props.baseUrl.replace(/\/+$/, '');
  const callTimeoutMs = props.callTimeout?.toMilliseconds();
  return {
    baseUrl: base,
    tokenUrl: props.tokenUrl ?? `${base}/oauth/token`,
    credentialsSecretArn: props.credentials.secretArn,
    ...(props.grantType && props.grantType !== PixConnectionDefaults.grantType ? { grantType: props.grantType } : {}),
    ...(props.basicCredentials && props.basicCredentials !== PixConnectionDefaults.basicCredentials
      ? { basicCredentials: props.basicCredentials }
      : {}),
    ...(Object.keys(paths).length ? { paths } : {}),
    ...(Object.keys(scopes).length ? { scopes } : {}),
    ...(callTimeoutMs !== undefined && callTimeoutMs !== PixConnectionDefaults.callTimeoutMs ? { callTimeoutMs } : {}),
    ...(props.simulated ? { simulated: true } : {}),
  };
}

/** The environment variable that hands a function its Pix connection, and read access to the credentials. */
export function pixConnectionEnvironment(
  scope: Construct,
  props: PixConnectionProps,
  grantee: iam.IGrantable,
): Record<string, string> {
  props.credentials.grantRead(grantee);
  return { [PIX_CONNECTION_ENV]: Stack.of(scope).toJsonString(pixConnectionSettings(props)) };
}
