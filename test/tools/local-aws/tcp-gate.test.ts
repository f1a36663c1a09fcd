/** The gate makes a service unreachable for a while without stopping it. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TcpGate } from '../../../tools/local-aws/tcp-gate';

let server: Server;
let gate: TcpGate;
let hits = 0;

beforeAll(async () => {
  server = createServer((_, res) => res.end(String(++hits)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  gate = new TcpGate((server.address() as AddressInfo).port);
  await gate.start();
});

afterAll(async () => {
  await gate.stop();
  await new Promise((resolve) => server.close(resolve));
});

const get = () => fetch(`http://127.0.0.1:${gate.port}/`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.text());

it("passes connections while open, resets them while closed, and passes again once reopened with the service's state intact", async () => {
  expect(await get()).toBe('1');
  gate.close();
  expect(gate.isOpen).toBe(false);
  await expect(get()).rejects.toThrow();
  expect(hits).toBe(1);
  gate.reopen();
  expect(await get()).toBe('2');
});
