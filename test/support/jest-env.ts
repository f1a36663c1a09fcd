/**
 * The environment of every test file.
 *
 * - aws-cdk-lib's jsii deprecation warnings are quiet: the one a green run met was cdk-nag's own
 *   read of `CfnEventBusPolicy#principal`. The library's own code is held to none at all by
 *   test/api/deprecations.test.ts, which synthesizes the receivers with `JSII_DEPRECATED=fail`.
 * - The structured (JSON) log and metric lines of handlers that tests run in this process (their
 *   loggers and metrics write straight to stdout and stderr) are not printed: a test that checks a log line
 *   captures it (`captureOutput` replaces the streams' write while it runs, so it still sees them).
 *   `TEST_HANDLER_LOGS=1` prints them.
 * - aws-cdk-lib's built-in CloudFormation validation (a WebAssembly rule engine it starts once per
 *   module registry, so once per test file: about 2.5 s of CPU each, a third of a small synth
 *   suite's) is off (`CDK_VALIDATION=false`). It only warns unless a stack asks for it, and the
 *   examples' own syntheses in CI (`cdk synth`, then cfn-lint on their templates) still run it.
 *   `CDK_VALIDATION=true npm test` turns it back on.
 */
process.env.JSII_DEPRECATED ??= 'quiet';
process.env.CDK_VALIDATION ??= 'false';

/** Their log lines (Powertools' and the processor's own) and their metric (EMF) lines name their service. */
const isHandlerLine = (text: string) => text.startsWith('{') && /"service":"bank-(webhook-[a-z]+|sandbox)"/.test(text);

if (!process.env.TEST_HANDLER_LOGS) {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      if (isHandlerLine(text)) return true;
      return write(chunk, ...rest);
    };
  }
  // The metric lines go to fd 1 directly (lambda/shared/metrics.ts): the same lines are left out there.
  const fs = jest.requireActual<typeof import('node:fs')>('node:fs');
  const writeSync = fs.writeSync as (...args: unknown[]) => number;
  fs.writeSync = (fd: unknown, data: unknown, ...rest: unknown[]) => {
    if ((fd === 1 || fd === 2) && Buffer.isBuffer(data)) {
      const offset = typeof rest[0] === 'number' ? rest[0] : 0;
      if (isHandlerLine(data.toString('utf8', offset))) return data.length - offset;
    }
    return writeSync(fd, data, ...rest);
  };
}
