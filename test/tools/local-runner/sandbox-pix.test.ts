/**
 * A staging receiver with Pix against a BankSandbox's standard Pix API, over the local runner
 * (issue 52, item 5): the sandbox's deployed bundle behind a local function URL, its Pix
 * application made at deploy by its credentials resource (a client id and secret, no client
 * certificate: a function URL asks for none, so the receiver's Pix connection is `simulated`).
 * No mutual TLS on the Pix route here, as on a staging stack without a domain: the pins and the
 * days-left metric are covered by test/lambda/receiver/pix-route.test.ts.
 */
import { BankEventDetailType as T } from '../../../contracts/events';
import { SAMPLE_PIX_KEYS } from '../../../contracts/sandbox';
import { LocalReceiverStack } from '../../../tools/local-runner/local-stack';
import { LocalRunner } from '../../../tools/local-runner/runner';

jest.setTimeout(150_000);

let runner: LocalRunner;

beforeAll(async () => {
  runner = await LocalRunner.start({
    sandbox: true,
    stack: (app, id) => new LocalReceiverStack(app, id, { pix: true }),
  });
  await runner.register();
});

afterAll(async () => {
  await runner?.stop();
});

const pixEvents = (from: number) =>
  runner.events.events
    .slice(from)
    .filter((e) => e.detailType === String(T.PIX_RECEIVED))
    .map((e) => [e.detail.subject.endToEndId as string, e.detail.trigger as string]);

it("registers each of the sandbox's keys at deploy, under the Pix application its credentials resource made", async () => {
  const state = await runner.control.pix.state();
  expect(state.keys).toEqual([...SAMPLE_PIX_KEYS]);
  expect(state.keys.map((k) => state.webhooks.find((w) => w.chave === k)?.webhookUrl)).toEqual(
    state.keys.map(() => runner.pixUrl),
  );
  // The credentials resource filled the Pix secret with a client id and secret, and no certificate.
  const bank = runner.bank as unknown as {
    secrets: { currentValue(arn: string): string | undefined };
    pixSecretArn: string;
  };
  expect(Object.keys(JSON.parse(bank.secrets.currentValue(bank.pixSecretArn)!) as object).sort()).toEqual([
    'clientId',
    'clientSecret',
  ]);
});

it("publishes a charge the sandbox announces once, confirmed under the sandbox's Pix credentials; a lost one is found by the sweep", async () => {
  const from = runner.events.events.length;
  const charge = await runner.control.pix.createCharge({ valor: '42.00' });
  const paid = await runner.control.pix.payCharge(charge.txid);
  await runner.settle(60_000);
  expect(pixEvents(from)).toEqual([[paid.pix[0].endToEndId, 'webhook']]);

  const lostFrom = runner.events.events.length;
  await runner.control.setFaults({ loseDeliveries: true });
  const lost = await runner.control.pix.payKey(SAMPLE_PIX_KEYS[1], { valor: '5.00', txid: 'STAGING01' });
  await runner.control.clearFaults();
  const report = await runner.sweep();
  expect(report.complete).toBe(true);
  await runner.settle(60_000);
  expect(pixEvents(lostFrom)).toEqual([[lost.pix[0].endToEndId, 'reconciliation']]);
  expect(runner.audit(undefined, (await runner.control.pix.state()).pix).problems).toEqual([]);
});

it("removes each key's webhook from the sandbox at destroy", async () => {
  await runner.unregister();
  expect((await runner.control.pix.state()).webhooks).toEqual([]);
});
