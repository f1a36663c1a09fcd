// Starts fauxqs (ESM-only, so not importable from jest's CommonJS runtime) on 127.0.0.1 and
// prints {"port":N} once listening. Exits when its parent closes stdin or sends SIGTERM, so it
// never outlives the test run.
import { buildApp } from 'fauxqs';

const app = buildApp({ logger: false });
await app.listen({ host: '127.0.0.1', port: Number(process.env.FAUXQS_PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
const stop = () => app.close().finally(() => process.exit(0));
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
