/**
 * moto's server (PyPI `moto[server]`, installed by `npm run setup:moto` and by .ci/run into
 * `.venv/moto`) on 127.0.0.1 and a free port: S3 and the other services it speaks, faithfully
 * enough to test against (versioning, Object Lock, conditional writes, listing by prefix). It
 * stops when the process that started it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { LOCAL_AWS } from './local-env';

const ROOT = resolve(__dirname, '../..');

/** The Python with moto in it: `MOTO_PYTHON`, or the one `npm run setup:moto` makes. */
export function motoPython(): string {
  const python = process.env.MOTO_PYTHON ?? join(ROOT, '.venv/moto/bin/python');
  if (!existsSync(python)) {
    throw new Error(
      `moto's server is not installed (no ${python}): run \`npm run setup:moto\` (a Python virtual environment with moto[server] from PyPI), or set MOTO_PYTHON to a Python that has it`,
    );
  }
  return python;
}

export interface Moto {
  readonly endpoint: string;
  /** An S3 client on it (path-style addressing, as a local endpoint needs). */
  s3(): S3Client;
  stop(): Promise<void>;
}

/** Starts moto's server; resolves once it listens. */
export async function startMoto(): Promise<Moto> {
  const child: ChildProcess = spawn(motoPython(), [join(ROOT, 'tools/moto/launcher.py')], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`moto's server did not start in 30 s: ${stderr}`)), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`moto's server exited (${code}): ${stderr}`));
    });
    child.stdout!.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolvePort(Number(chunk.toString().trim()));
    });
  });
  child.removeAllListeners('exit');
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  return {
    endpoint,
    s3() {
      const client = new S3Client({
        region: LOCAL_AWS.region,
        credentials: LOCAL_AWS.credentials,
        endpoint,
        forcePathStyle: true,
      });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) client.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
