/**
 * The one way a handler reads what its construct wrote for it: one JSON object, in an environment
 * variable or a custom resource's properties, every field present and of its kind. The construct
 * fills every default, so the handler applies none: a missing or malformed field is a deployment
 * to redo, and the error says so, naming the construct that writes the value.
 */

/** Where a handler's settings come from, for its errors. */
export interface SettingsSource {
  /** The place: an environment variable's name, or "The custom resource property <name>". */
  readonly where: string;
  /** The construct that writes it, such as `BankWebhookEndpoint`. */
  readonly setBy: string;
}

/** A string field that must match a pattern, and what it must be in words. */
export interface SettingsPattern {
  readonly pattern: RegExp;
  /** Such as "an SQS queue URL". */
  readonly what: string;
}

/** The fields a construct always writes into a handler's settings, by kind. */
export interface SettingsFields<T> {
  /** Non-empty strings. */
  readonly strings?: readonly (keyof T & string)[];
  /** Strings that must match a pattern. */
  readonly patterns?: Partial<Record<keyof T & string, SettingsPattern>>;
  /** Numbers of 0 or more. */
  readonly numbers?: readonly (keyof T & string)[];
  /** Whole numbers within [min, max]. */
  readonly wholeNumbers?: Partial<Record<keyof T & string, readonly [number, number]>>;
  /** Objects (or arrays). */
  readonly objects?: readonly (keyof T & string)[];
  /** Non-empty arrays. */
  readonly lists?: readonly (keyof T & string)[];
}

/** What every settings error ends with: who writes the value, and what to do. */
export function settingsFix(source: SettingsSource): string {
  return `(the ${source.setBy} construct sets it; redeploy rather than editing it)`;
}

/**
 * Reads the settings a construct wrote (`raw`: the JSON text, or the object a custom resource's
 * properties already are) and checks every field of `fields`. Throws one error that names every
 * missing or malformed field, the place and the construct that writes it.
 */
export function readSettings<T>(
  raw: string | Record<string, unknown> | undefined,
  source: SettingsSource,
  fields: SettingsFields<T>,
): T {
  const fix = settingsFix(source);
  let parsed: unknown = raw;
  if (raw === undefined || raw === '') throw new Error(`${source.where} is not set ${fix}`);
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error(`${source.where} is not JSON ${fix}`);
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`${source.where} is not a JSON object ${fix}`);
  const value = parsed as Record<string, unknown>;
  const patterns = Object.entries<SettingsPattern | undefined>(fields.patterns ?? {});
  const ranges = Object.entries<readonly [number, number] | undefined>(fields.wholeNumbers ?? {});
  const absent = (key: string) => value[key] === undefined || value[key] === null;
  const missing = [
    ...(fields.strings ?? []).filter((key) => typeof value[key] !== 'string' || !value[key]),
    ...patterns.map(([key]) => key).filter(absent),
    ...(fields.numbers ?? []).filter((key) => !(typeof value[key] === 'number' && value[key] >= 0)),
    ...ranges.map(([key]) => key).filter(absent),
    ...(fields.objects ?? []).filter((key) => !value[key] || typeof value[key] !== 'object'),
    ...(fields.lists ?? []).filter((key) => !Array.isArray(value[key]) || (value[key] as unknown[]).length === 0),
  ];
  const malformed = [
    ...patterns
      .filter(
        ([key, rule]) => !absent(key) && rule && !(typeof value[key] === 'string' && rule.pattern.test(value[key])),
      )
      .map(([key, rule]) => `${key} must be ${rule!.what}, got ${JSON.stringify(value[key])}`),
    ...ranges
      .filter(
        ([key, range]) =>
          !absent(key) &&
          range &&
          !(Number.isInteger(value[key]) && (value[key] as number) >= range[0] && (value[key] as number) <= range[1]),
      )
      .map(
        ([key, range]) =>
          `${key} must be a whole number from ${range![0]} to ${range![1]}, got ${JSON.stringify(value[key])}`,
      ),
  ];
  const problems = [...(missing.length ? [`lacks ${missing.join(', ')}`] : []), ...malformed];
  // "X lacks a, b" when fields are only missing; "X: lacks a; b must be ..." when some are malformed.
  if (problems.length) throw new Error(`${source.where}${malformed.length ? ':' : ''} ${problems.join('; ')} ${fix}`);
  return value as T;
}
