/**
 * What the local runner's functions print: one log file per function in the run's log folder,
 * the sums of their embedded-metric-format metrics, and every datapoint for the alarms.
 */
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MetricDatapoint, metricDatapoints } from './alarms';
import { addMetricLine, type LocalRunnerOptions } from './runner-types';

/** The run's logs and the metrics read from them. */
export class RunnerLogs {
  /** The folder holding `<function>.log` for each function that printed. */
  readonly dir: string;
  /** Sums of the functions' metrics, by name. */
  readonly metricSums: Record<string, number> = {};
  /** Every metric datapoint the functions printed (into `options.metrics` when given, shared by runners). */
  readonly datapoints: MetricDatapoint[];
  private readonly ownsDir: boolean;
  private readonly files = new Map<string, WriteStream>();

  constructor(private readonly options: Pick<LocalRunnerOptions, 'logDir' | 'metrics' | 'onLog'>) {
    this.datapoints = options.metrics ?? [];
    this.ownsDir = !options.logDir;
    this.dir = options.logDir ?? mkdtempSync(join(tmpdir(), 'bank-webhooks-logs-'));
    mkdirSync(this.dir, { recursive: true });
  }

  /** One line a function printed: counted, appended to its file and passed to `options.onLog`. */
  write(name: string, line: string): void {
    addMetricLine(line, this.metricSums);
    this.datapoints.push(...metricDatapoints(line));
    let file = this.files.get(name);
    if (!file) {
      file = createWriteStream(join(this.dir, `${name}.log`), { flags: 'a' });
      this.files.set(name, file);
    }
    file.write(`${line}\n`);
    this.options.onLog?.(name, line);
  }

  /** Closes the files; removes the folder when the runner made it. */
  async close(): Promise<void> {
    await Promise.all([...this.files.values()].map((file) => new Promise((resolve) => file.end(resolve))));
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }
}
