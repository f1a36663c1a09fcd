import type { Log } from '../../lambda/shared/runtime';

export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly extra: Record<string, unknown>;
}

/** A logger that keeps what it is given, for asserting on log lines. */
export class RecordingLogger implements Log {
  public readonly entries: LogEntry[] = [];

  info(message: string, ...extra: Record<string, unknown>[]): void {
    this.entries.push({ level: 'info', message, extra: Object.assign({}, ...extra) as Record<string, unknown> });
  }

  warn(message: string, ...extra: Record<string, unknown>[]): void {
    this.entries.push({ level: 'warn', message, extra: Object.assign({}, ...extra) as Record<string, unknown> });
  }

  error(message: string, ...extra: Record<string, unknown>[]): void {
    this.entries.push({ level: 'error', message, extra: Object.assign({}, ...extra) as Record<string, unknown> });
  }

  /** Everything logged, as one string. */
  text(): string {
    return JSON.stringify(this.entries);
  }
}
