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
 */
process.env.JSII_DEPRECATED ??= 'quiet';

if (!process.env.TEST_HANDLER_LOGS) {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      // Their log lines (Powertools' and the processor's own) and their metric (EMF) lines name their service.
      if (text.startsWith('{') && /"service":"bank-(webhook-[a-z]+|sandbox)"/.test(text)) return true;
      return write(chunk, ...rest);
    });
  }
}
