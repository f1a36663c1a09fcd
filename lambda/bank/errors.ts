/**
 * The bank's error bodies are not consistent (cdk-bank-webhooks/docs/bank-api.md): `error`/`error_description` at the
 * token endpoints, `message`, `mensagem`, `mensagens[]`, `erros[]` and `errors[]` elsewhere; the
 * standard Pix API's RFC 7807 problems (`detail`, `title`, `violacoes[]` of `{razao, propriedade}`).
 * {@link bankErrorMessage} turns any of them into one readable line.
 */
import { secrets } from '../shared/redaction';

const MAX_MESSAGE_LENGTH = 500;

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** One entry of a list of problems: `{codigo, mensagem}`, `{field, message}`, or a plain string. */
function entryText(entry: unknown): string | undefined {
  if (typeof entry === 'string') return text(entry);
  if (!entry || typeof entry !== 'object') return undefined;
  const e = entry as Record<string, unknown>;
  const message =
    text(e.mensagem) ??
    text(e.message) ??
    text(e.descricao) ??
    text(e.razao) ??
    text(e.error_description) ??
    text(e.error);
  const code = text(e.codigo) ?? text(e.code);
  const field = text(e.field) ?? text(e.campo) ?? text(e.propriedade);
  if (!message) return code;
  return [code ? `${code}: ` : '', field ? `${field}: ` : '', message].join('');
}

/**
 * The readable message of a bank error body, or undefined when the body says nothing useful.
 * Secrets are masked before anything is cut to length, so no part of one survives.
 */
export function bankErrorMessage(rawBody: string): string | undefined {
  const body = secrets.redact(rawBody);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const plain = body
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return plain ? plain.slice(0, MAX_MESSAGE_LENGTH) : undefined;
  }
  const lists = Array.isArray(parsed) ? [parsed] : [];
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const p = parsed as Record<string, unknown>;
    for (const key of ['mensagens', 'erros', 'errors', 'messages', 'violacoes']) {
      if (Array.isArray(p[key])) lists.push(p[key] as unknown[]);
    }
    const oauth =
      text(p.error) && text(p.error_description) ? `${text(p.error)}: ${text(p.error_description)}` : undefined;
    const single =
      oauth ??
      text(p.mensagem) ??
      text(p.message) ??
      text(p.error_description) ??
      text(p.detail) ??
      text(p.title) ??
      text(p.error);
    if (single && lists.length === 0) return single.slice(0, MAX_MESSAGE_LENGTH);
    const fromLists = lists
      .flat()
      .map(entryText)
      .filter((m): m is string => !!m);
    const all = [...(single ? [single] : []), ...fromLists];
    if (all.length) return all.join('; ').slice(0, MAX_MESSAGE_LENGTH);
    return undefined;
  }
  const fromList = lists
    .flat()
    .map(entryText)
    .filter((m): m is string => !!m);
  return fromList.length ? fromList.join('; ').slice(0, MAX_MESSAGE_LENGTH) : undefined;
}

/** A bank call that failed: which operation, the HTTP status (if any answer came) and the bank's message. */
export class BankApiError extends Error {
  /** The bank's own message, or the network error's, with every secret masked. */
  readonly detail: string;

  constructor(
    /** What was being done, such as "boleto query" or "payments token". */
    readonly operation: string,
    /** HTTP status, or undefined when no answer came (network error, timeout). */
    readonly status: number | undefined,
    /** The bank's own message, or the network error's. */
    detail: string,
    /** Whether trying again later may succeed (network errors, timeouts, 429, 5xx). */
    readonly retryable: boolean,
    /** How many calls were made before giving up. */
    readonly attempts = 1,
    /** Given up because the caller's deadline left no time for (another) call, not because the bank refused. */
    readonly outOfTime = false,
  ) {
    // The bank may echo a request (a token request's password, a PATCH's authorizationCallback) in its error.
    super(
      `${operation} failed${status === undefined ? '' : ` with HTTP ${status}`}: ${secrets.redact(detail)}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`,
    );
    this.name = 'BankApiError';
    this.detail = secrets.redact(detail);
  }
}

/** Whether an HTTP status is worth retrying: 408, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
