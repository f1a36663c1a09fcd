/** The metric line writer on a real pipe (a child process): an end-to-end suite. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

describe('the line writer (fd 1, as the Lambda runtime writes)', () => {
  it('loses and repeats nothing on a real pipe that fills while its reader is slow (fd 1 non-blocking)', async () => {
    // A child writes through the writer after touching process.stdout (which makes its pipe
    // non-blocking, as anything that logs through the stream does); the parent reads slowly.
    const script = [
      `const { fdLineWriter } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'lambda', 'shared', 'metrics.ts'))});`,
      "process.stdout.write('start\\n');",
      'const write = fdLineWriter(1, () => process.stdout);',
      "for (let i = 0; i < 400; i++) write(JSON.stringify({ i, pad: 'p'.repeat(2000 + (i % 7) * 1000) }));",
    ].join('\n');
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 300)); // the pipe fills
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
    expect(lines[0]).toBe('start');
    expect(lines.slice(1).map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
      Array.from({ length: 400 }, (_, i) => i),
    );
  }, 30_000);
});
