/**
 * Secret values never appear in a log line, a thrown error or a CloudFormation reason, even when
 * the bank echoes a request back in its error body. Every handler registers each secret it reads
 * (token values, bank credentials, the mTLS private key, the bank's access and refresh tokens)
 * with the process-wide {@link secrets}; its logger and BankApiError mask them in every form they
 * can travel in, and the token-request fields by name whatever their value.
 */
export const REDACTED = '***';

/** Values shorter than this are not masked (they would mask ordinary text). */
const MIN_SECRET_LENGTH = 4;

/** Fields whose value is secret wherever they appear: form bodies, JSON, headers. */
const SECRET_FIELDS =
  'password|client_secret|clientSecret|refresh_token|refreshToken|access_token|accessToken|authorizationCallback|token|apiKey|clientKey';
const FORM_FIELD = new RegExp(`(^|[?&\\s"'(])(${SECRET_FIELDS})=[^&\\s"')]*`, 'g');
const JSON_FIELD = new RegExp(`("(?:${SECRET_FIELDS})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');
const ESCAPED_JSON_FIELD = new RegExp(`(\\\\"(?:${SECRET_FIELDS})\\\\"\\s*:\\s*)\\\\"(?:[^"\\\\]|\\\\[^"])*\\\\"`, 'g');
const HEADER = /((?:authorization|x-api-key)["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic)\s+)?[^\s"',;}]+/gi;

/** Every form a value can take in a request or a log: raw, URL- and form-encoded, JSON-escaped, base64. */
export function secretForms(value: string): string[] {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  return [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    JSON.stringify(JSON.stringify(value).slice(1, -1)).slice(1, -1),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(value, 'utf8').toString('base64url'),
  ];
}

/** The secret values a process has read, and the masking of them. */
export class SecretRedactor {
  private readonly values = new Set<string>();
  /** Every form of every value, longest first (a form inside another is masked with it). */
  private forms: string[] = [];

  /** Registers values to mask (strings only; short and empty ones are ignored). */
  remember(...values: unknown[]): void {
    let added = false;
    for (const value of values) {
      if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || this.values.has(value)) continue;
      this.values.add(value);
      added = true;
    }
    if (!added) return;
    const forms = new Set<string>();
    for (const value of this.values)
      for (const form of secretForms(value)) if (form.length >= MIN_SECRET_LENGTH) forms.add(form);
    this.forms = [...forms].sort((a, b) => b.length - a.length);
  }

  /** The text with every registered value (in every form) and every secret field's value masked. */
  redact(text: string): string {
    let out = text;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out
      .replace(FORM_FIELD, `$1$2=${REDACTED}`)
      .replace(ESCAPED_JSON_FIELD, `$1\\"${REDACTED}\\"`)
      .replace(JSON_FIELD, `$1"${REDACTED}"`)
      .replace(HEADER, `$1${REDACTED}`);
  }

  /** Forgets every value (tests). */
  clear(): void {
    this.values.clear();
    this.forms = [];
  }
}

/** The process's secrets: every handler module registers what it reads here. */
export const secrets = new SecretRedactor();
