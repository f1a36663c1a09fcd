/** The command line: each command's help, and its arguments parsed by its spec (cli/command-specs.ts). */
import { parseArgs } from 'node:util';
import { CLI_EXIT_MEANING, CliExit } from '../contracts/operations';
import { COMMANDS } from './command-specs';

/** The number of single-character edits between two words. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/**
 * The known word nearest to `word`, when it is near enough to be a slip: the same first letter,
 * and at most a third of its letters (at least two) typed otherwise.
 */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const scored = known
    .filter((k) => k[0]?.toLowerCase() === typed[0])
    .map((k) => ({ k, d: distance(typed, k.toLowerCase()) }))
    .sort((x, y) => x.d - y.d);
  const best = scored[0];
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.k : undefined;
}

/** The exit statuses, one line each: what the help and docs/operations.md say. */
export function exitLines(
  exits: readonly CliExit[] = Object.values(CliExit).filter((v): v is CliExit => typeof v === 'number'),
  details: Readonly<Partial<Record<CliExit, string>>> = {},
): string[] {
  // A command's own detail replaces the general meaning's pointer to each command's help.
  const general = (exit: CliExit) => CLI_EXIT_MEANING[exit].replace(/ \(each command says what, in its --help\)$/, '');
  return exits.map(
    (exit) => `  ${exit}  ${details[exit] ? `${general(exit)}: ${details[exit]}` : CLI_EXIT_MEANING[exit]}`,
  );
}

/** One command's help: usage, options with defaults, two examples, exit statuses. */
export function commandHelp(name: string): string {
  const spec = COMMANDS[name];
  const flags = Object.entries(spec.options).map(([option, o]) => ({
    left: `--${option}${o.value ? ` ${o.value}` : ''}`,
    o,
  }));
  const width = Math.max(...flags.map((f) => f.left.length));
  return [
    `Usage: cdk-bank-webhooks ${spec.usage} [options]`,
    '',
    spec.summary,
    '',
    'Options:',
    ...flags.map(({ left, o }) => `  ${left.padEnd(width)}  ${o.help}${o.default ? ` (default: ${o.default})` : ''}`),
    '',
    'Examples:',
    ...spec.examples.map((e) => `  ${e}`),
    '',
    'Exit status:',
    ...exitLines([...new Set(spec.exits)].sort(), spec.exitDetails),
  ].join('\n');
}

/** A command line error: the CLI prints it and exits 2. */
export class UsageError extends Error {}

/** Asks for help: `--help` or `-h` anywhere before a `--`. */
export const wantsHelp = (args: readonly string[]): boolean => {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

/**
 * Parses a command's arguments by its spec; an unknown option names the nearest known one, and
 * one that takes a value but got none says so.
 */
export function parseCommand(
  name: string,
  args: readonly string[],
): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  const spec = COMMANDS[name];
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([option, o]) => [
      option,
      { type: o.type, ...(o.multiple ? { multiple: true } : {}) },
    ]),
  );
  try {
    return parseArgs({ args: [...args], allowPositionals: true, options }) as {
      values: Record<string, string | boolean | string[] | undefined>;
      positionals: string[];
    };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message;
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
      const guess = nearest(unknown.replace(/^-+/, ''), Object.keys(spec.options));
      throw new UsageError(
        `${name} has no option ${unknown}${guess ? `; did you mean --${guess}?` : '.'} Run "cdk-bank-webhooks ${name} --help" for its options.`,
      );
    }
    const missing = /Option '(-{1,2}[^']+?)(?: <value>)?' argument missing/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && missing)
      throw new UsageError(
        `${name}: ${missing} needs a value. Run "cdk-bank-webhooks ${name} --help" for its options.`,
      );
    throw new UsageError(`${name}: ${message}`);
  }
}
