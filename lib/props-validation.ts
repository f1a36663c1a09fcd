import { Token } from 'aws-cdk-lib';

/**
 * Collects every problem with a construct's props, then throws once, naming the props involved,
 * so a user fixes them all in one go instead of one synth at a time.
 */
export class PropsValidation {
  private readonly problems: string[] = [];

  constructor(private readonly constructName: string) {}

  /** Records `message` against `prop` unless `ok`. */
  check(ok: boolean, prop: string, message: string): void {
    if (!ok) this.problems.push(`${prop}: ${message}`);
  }

  /** Checks a number that may be a CDK token (tokens are checked at deploy time, not here). */
  checkNumber(value: number | undefined, prop: string, test: (value: number) => boolean, message: string): void {
    if (value === undefined || Token.isUnresolved(value)) return;
    this.check(test(value), prop, `${message}, got ${value}`);
  }

  /** Throws one error listing every problem, if there are any. */
  throwIfInvalid(): void {
    if (this.problems.length === 0) return;
    throw new Error(
      `Invalid ${this.constructName} props (${this.problems.length} problem${this.problems.length === 1 ? '' : 's'}):\n` +
        this.problems.map((problem) => `  - ${problem}`).join('\n'),
    );
  }
}

export function isWholeNumberIn(min: number, max: number): (value: number) => boolean {
  return (value) => Number.isInteger(value) && value >= min && value <= max;
}
