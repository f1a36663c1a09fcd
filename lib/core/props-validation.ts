import { Token } from 'aws-cdk-lib';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';

/**
 * Collects every problem with a construct's props, then throws once, naming the props involved,
 * so a user fixes them all in one go instead of one synth at a time.
 */
export class PropsValidation {
  private readonly problems: string[];
  private readonly names: Readonly<Record<string, string>>;

  /** @param path the construct's path (`Stack/Receiver`), so an app with several can tell which one is wrong */
  constructor(
    private readonly constructName: string,
    private readonly path: string,
    shared?: { problems: string[]; names: Readonly<Record<string, string>> },
    /** The stack's region (a token when the stack has none): for the checks that depend on it. */
    readonly region?: string,
  ) {
    this.problems = shared?.problems ?? [];
    this.names = shared?.names ?? {};
  }

  /**
   * The same collection of problems, naming props as a facade calls them: a part's `timeout`
   * is the facade's `processorTimeout`, so the user reads the name they wrote.
   */
  renamed(names: Readonly<Record<string, string>>): PropsValidation {
    return new PropsValidation(
      this.constructName,
      this.path,
      { problems: this.problems, names: { ...this.names, ...names } },
      this.region,
    );
  }

  /** Records `message` against `prop` unless `ok`. */
  check(ok: boolean, prop: string, message: string): void {
    if (ok) return;
    const [head, ...rest] = prop.split('.');
    const problem = `${[this.names[head] ?? head, ...rest].join('.')}: ${message}`;
    // A prop two parts check (the facade's shared ones) is named once.
    if (!this.problems.includes(problem)) this.problems.push(problem);
  }

  /** Checks a number that may be a CDK token (tokens are checked at deploy time, not here). */
  checkNumber(value: number | undefined, prop: string, test: (value: number) => boolean, message: string): void {
    if (value === undefined || Token.isUnresolved(value)) return;
    this.check(test(value), prop, `${message}, got ${value}`);
  }

  /** Throws one error listing every problem, if there are any. */
  throwIfInvalid(): void {
    if (this.problems.length === 0) return;
    const error = new Error(
      `Invalid ${this.constructName} props at ${this.path} (${this.problems.length} problem${this.problems.length === 1 ? '' : 's'}):\n` +
        this.problems.map((problem) => `  - ${problem}`).join('\n'),
    );
    // The message names the construct and each prop: a stack trace would only point into the
    // library's compiled files (and, through their source maps, sources the package inlines, not ships as files).
    error.stack = `Error: ${error.message}`;
    throw error;
  }
}

/** Props a facade has already checked, with every problem of every part reported in one error. */
const checkedByFacade = new WeakSet<object>();

/** Marks props as checked by the facade that made them, so the part does not check them again. */
export function checkedBy<T extends object>(props: T): T {
  checkedByFacade.add(props);
  return props;
}

/** Checks the props of the construct at `path` (named in the error) with `check` and throws once, unless a facade already checked them. */
export function validateProps<T extends object>(
  path: string,
  constructName: string,
  props: T,
  check: (v: PropsValidation, props: T) => void,
  region?: string,
): void {
  if (checkedByFacade.has(props)) return;
  const v = new PropsValidation(constructName, path, undefined, region);
  check(v, props);
  v.throwIfInvalid();
}

export function isWholeNumberIn(min: number, max: number): (value: number) => boolean {
  return (value) => Number.isInteger(value) && value >= min && value <= max;
}

/** An https URL with a host and no query or fragment. */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && !!url.hostname && !url.search && !url.hash;
  } catch {
    return false;
  }
}

/** HTTP header name characters (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers API Gateway or HTTP itself sets or rewrites: they cannot carry a token. */
const RESERVED_HEADERS = [
  'host',
  'content-length',
  'content-type',
  'connection',
  'transfer-encoding',
  'x-amzn-trace-id',
  'x-forwarded-for',
];

/** Checks the name of the header a token travels in (unless it is a deploy-time value). */
export function checkTokenHeader(v: PropsValidation, header: string | undefined, prop: string): void {
  if (header === undefined || Token.isUnresolved(header)) return;
  v.check(
    HEADER_NAME.test(header),
    prop,
    `must be an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-), got "${header}"`,
  );
  v.check(
    !RESERVED_HEADERS.includes(header.toLowerCase()),
    prop,
    `"${header}" is set or rewritten by HTTP or API Gateway and cannot carry the token; use Authorization or a custom header such as X-Webhook-Token`,
  );
}

/** A secret's name as Secrets Manager takes it. */
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

/**
 * Checks that a secret given as a prop names one: an imported secret with an empty name (say
 * `Secret.fromSecretNameV2(scope, id, '')`) would put `...:secret:` in a function's settings and a
 * grant on every secret whose name starts there. Deploy-time names are checked at deploy time.
 */
export function checkSecretNamed(v: PropsValidation, secret: secretsmanager.ISecret | undefined, prop: string): void {
  if (!secret) return;
  const name = secret.secretName;
  if (typeof name === 'string' && !Token.isUnresolved(name)) {
    v.check(
      SECRET_NAME.test(name),
      prop,
      `must name a secret (1 to 512 letters, digits or /_+=.@-), got ${JSON.stringify(name)}: import it by its complete ARN (Secret.fromSecretCompleteArn) or a name that is not empty`,
    );
  }
  const arn = secret.secretArn;
  if (typeof arn === 'string' && !Token.isUnresolved(arn)) {
    v.check(
      /:secret:[^:]+$/.test(arn),
      prop,
      `must be a secret's ARN with its name (arn:aws:secretsmanager:<region>:<account>:secret:<name>), got "${arn}"`,
    );
  }
}
