/**
 * EventBridge's event pattern matching, for the content filters a rule of this library uses:
 * lists of exact values (strings, numbers, booleans, null), `prefix`, `exists`, `anything-but`
 * and `numeric` filters, nested objects and `$or`. Used to check the rules the constructs
 * synthesize against the events the processor publishes; EventBridge itself is the reference.
 */

type Pattern = Record<string, unknown>;

function matchesFilter(filter: unknown, value: unknown, present: boolean): boolean {
  if (filter === null || typeof filter !== 'object')
    return present && (Array.isArray(value) ? value.includes(filter) : value === filter);
  const f = filter as Record<string, unknown>;
  if ('exists' in f) return f.exists === present;
  if (!present) return false;
  const values = Array.isArray(value) ? value : [value];
  if ('prefix' in f) return values.some((v) => typeof v === 'string' && v.startsWith(String(f.prefix)));
  if ('anything-but' in f) {
    const excluded = Array.isArray(f['anything-but']) ? (f['anything-but'] as unknown[]) : [f['anything-but']];
    return values.every((v) => !excluded.includes(v));
  }
  if ('numeric' in f) {
    const [op, bound, op2, bound2] = f.numeric as [string, number, string?, number?];
    const check = (v: number, o: string, b: number) =>
      (({ '<': v < b, '<=': v <= b, '=': v === b, '>': v > b, '>=': v >= b }) as Record<string, boolean>)[o];
    return values.some(
      (v) => typeof v === 'number' && check(v, op, bound) && (op2 === undefined || check(v, op2, bound2!)),
    );
  }
  throw new Error(`unsupported event pattern filter: ${JSON.stringify(filter)}`);
}

function matchesObject(pattern: Pattern, value: unknown): boolean {
  const object = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return Object.entries(pattern).every(([key, rule]) => {
    if (key === '$or') return (rule as Pattern[]).some((alternative) => matchesObject(alternative, value));
    const present = key in object;
    if (Array.isArray(rule)) return rule.some((filter) => matchesFilter(filter, object[key], present));
    if (rule && typeof rule === 'object') return present && matchesObject(rule as Pattern, object[key]);
    throw new Error(`an event pattern's ${key} must be a list or an object, got ${JSON.stringify(rule)}`);
  });
}

/** Whether an event (`source`, `detail-type`, `detail`, ...) matches an EventBridge event pattern. */
export function matchesEventPattern(pattern: Pattern, event: Record<string, unknown>): boolean {
  return matchesObject(pattern, event);
}
