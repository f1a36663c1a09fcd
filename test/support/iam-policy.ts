/**
 * A small evaluator of the policy statements the library writes, as IAM evaluates a request made
 * inside one account: an explicit deny in any policy wins; otherwise the request is allowed when the
 * caller's own (identity) policy allows it or a resource policy statement allows it; else it is
 * implicitly denied. Conditions follow IAM's documented rules: every operator block and every key in
 * it must hold; a single-valued key matches a list of policy values when it matches any of them (a
 * negated operator: when it matches none); a key the request does not carry makes a positive
 * operator false, a negated one (`...Not...`) true, an `...IfExists` one true, and `Null: true` true.
 *
 * Templates hold references, not ARNs: {@link symbolOf} turns `Ref`, `Fn::GetAtt` and `Fn::Join`
 * into stable strings, so a test names a caller by the same symbol (`symbolOf({ 'Fn::GetAtt': [roleId, 'Arn'] })`).
 */

/** A request: who makes it, what on which resource, and the rest of its context. */
export interface IamRequest {
  readonly action: string;
  readonly resource: string;
  /** An IAM principal's ARN (a role's, for an assumed role), or an AWS service acting itself. */
  readonly principal: { readonly arn: string } | { readonly service: string };
  /** Other keys of the request context (`aws:SourceArn`, `aws:SecureTransport`, `events:source`...). */
  readonly context?: Readonly<Record<string, string | readonly string[]>>;
  /** Whether the caller's own identity policy allows the request (inside one account, that is enough without a deny). */
  readonly identityAllows?: boolean;
}

export type IamDecision = 'allowed' | 'explicitly denied' | 'implicitly denied';

/** A policy statement as a template holds it. */
export type StatementJson = Record<string, unknown>;

/** A stable string for a template value: references become `${logicalId}`, `${logicalId}.${attribute}`. */
export function symbolOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const [fn, args] = Object.entries((value ?? {}) as Record<string, unknown>)[0] ?? [];
  if (fn === 'Ref') return `\${${String(args)}}`;
  if (fn === 'Fn::GetAtt') return `\${${(args as string[]).join('.')}}`;
  if (fn === 'Fn::Join') {
    const [separator, parts] = args as [string, unknown[]];
    return parts.map(symbolOf).join(separator);
  }
  if (fn === 'Fn::Select') {
    // A part of a split reference (an ARN's region, say) stays a symbol of its own.
    const [index, from] = args as [number, { 'Fn::Split'?: [string, unknown] }];
    if (from['Fn::Split']) return `\${${symbolOf(from['Fn::Split'][1])}.split(${from['Fn::Split'][0]})[${index}]}`;
  }
  throw new Error(`iam-policy: cannot evaluate the template value ${JSON.stringify(value)}`);
}

function list(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map(symbolOf);
}

/** IAM's wildcard match (`*` any run, `?` one character), case-sensitive. */
function like(pattern: string, value: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
    's',
  );
  return regex.test(value);
}

function principalMatches(principal: unknown, caller: IamRequest['principal']): boolean {
  if (principal === '*') return true;
  const p = principal as Record<string, unknown>;
  if ('arn' in caller) return list(p.AWS ?? []).some((v) => v === '*' || v === caller.arn);
  // `{ AWS: '*' }` is read as every principal, services too: the stricter reading for a deny.
  return list(p.Service ?? []).includes(caller.service) || list(p.AWS ?? []).includes('*');
}

/** The request's value of a key: the principal's own keys, then the context. */
function contextValue(request: IamRequest, key: string): string[] | undefined {
  if (key === 'aws:PrincipalArn') return 'arn' in request.principal ? [request.principal.arn] : undefined;
  if (key === 'aws:PrincipalServiceName')
    return 'service' in request.principal ? [request.principal.service] : undefined;
  if (key === 'aws:PrincipalIsAWSService') return ['service' in request.principal ? 'true' : 'false'];
  const value = request.context?.[key];
  return value === undefined ? undefined : typeof value === 'string' ? [value] : [...value];
}

const MATCHERS: Record<string, (policy: string, actual: string) => boolean> = {
  StringEquals: (p, a) => p === a,
  StringLike: like,
  ArnEquals: like,
  ArnLike: like,
  Bool: (p, a) => p.toLowerCase() === a.toLowerCase(),
  NumericLessThan: (p, a) => Number(a) < Number(p),
};

function conditionHolds(operator: string, key: string, policyValues: string[], request: IamRequest): boolean {
  const actual = contextValue(request, key);
  if (operator === 'Null') return policyValues.some((v) => (v === 'true') === (actual === undefined));
  let op = operator;
  const setOperator = op.startsWith('ForAnyValue:') ? 'any' : op.startsWith('ForAllValues:') ? 'all' : undefined;
  if (setOperator) op = op.slice(op.indexOf(':') + 1);
  const ifExists = op.endsWith('IfExists');
  if (ifExists) op = op.slice(0, -'IfExists'.length);
  const negated = /^(String|Arn)Not(Equals|Like)$/.test(op);
  const base = negated ? op.replace('Not', '') : op;
  const match = MATCHERS[base];
  if (!match) throw new Error(`iam-policy: the operator ${operator} is not evaluated here`);
  if (actual === undefined) return ifExists || negated || setOperator === 'all';
  const matches = (value: string) => policyValues.some((p) => match(p, value));
  if (setOperator === 'all') return actual.every(matches);
  // ForAnyValue and a single value: any request value matching any policy value; negated: none.
  return negated ? !actual.some(matches) : actual.some(matches);
}

function statementApplies(statement: StatementJson, request: IamRequest, resourcePolicy: boolean): boolean {
  if (resourcePolicy && !principalMatches(statement.Principal, request.principal)) return false;
  if (!list(statement.Action ?? []).some((a) => like(a, request.action))) return false;
  if (statement.NotResource !== undefined) {
    if (list(statement.NotResource).some((r) => like(r, request.resource))) return false;
  } else if (!list(statement.Resource ?? '*').some((r) => like(r, request.resource))) return false;
  const conditions = (statement.Condition ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(conditions).every(([operator, keys]) =>
    Object.entries(keys).every(([key, values]) => conditionHolds(operator, key, list(values), request)),
  );
}

/** How IAM decides `request` against the resource policy `statements` (and the caller's own policy, as `identityAllows` says). */
export function evaluate(statements: readonly StatementJson[], request: IamRequest): IamDecision {
  const applying = statements.filter((s) => statementApplies(s, request, true));
  if (applying.some((s) => s.Effect === 'Deny')) return 'explicitly denied';
  if (request.identityAllows || applying.some((s) => s.Effect === 'Allow')) return 'allowed';
  return 'implicitly denied';
}
