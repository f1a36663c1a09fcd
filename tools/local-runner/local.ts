/**
 * `npm run local`: the example stack on the local runner, kept up until stopped, for an operator
 * to practise docs/operations.md from another shell. It prints the `export` lines that point the
 * AWS SDK (and so `cdk-bank-webhooks`) at the stand-ins, and takes one control a line on stdin:
 * settle a boleto, pay a Pix payment, lose a notification, quarantine one; and Pix received (the
 * standard Pix API): a charge paid, a key paid, a refund of each nature, another customer's Pix,
 * a lost callback. Quarantined messages stay in
 * the dead-letter queue until an operator acts; a consumer rule's queue and the bus's archive are
 * there for `replay`.
 */
import { createInterface } from 'node:readline';
import { bundleHandlers, bundlesAreFresh } from '../bundle-handlers';
import { LocalReceiverStack } from './local-stack';
import { LocalRunner } from './runner';
import { RefundNature, RefundStatus } from '../../contracts/pix';

/** The consumer rule of the example stack whose queue `replay` can fill again. */
export const LOCAL_CONSUMER_RULE = 'BankWebhooksBoletoSettledRule';

/** The shell lines that point the AWS SDK at the runner's stand-ins. */
export function exportLines(runner: LocalRunner): string[] {
  const aws = runner.operatorAws();
  return [
    `export AWS_REGION=${aws.region} AWS_ACCESS_KEY_ID=${aws.credentials!.accessKeyId} AWS_SECRET_ACCESS_KEY=${aws.credentials!.secretAccessKey}`,
    // The queues' URLs name sqs.<region>.localhost, which a shell does not resolve: the SDK is sent to 127.0.0.1 (the CLI then ignores the URLs' host).
    ...Object.entries(aws.endpoints ?? {}).map(
      ([service, url]) =>
        `export AWS_ENDPOINT_URL_${service}=${url.replace(/\/\/[^/:]+\.localhost(?=[:/])/, '//127.0.0.1')}`,
    ),
    `export STACK=${runner.stackName}`,
  ];
}

const CONTROLS: Record<string, string> = {
  settle: 'a boleto is settled; its notification is delivered',
  notify: 'a Pix payment is made and settled; its notifications are delivered',
  lose: 'a boleto is settled and the bank loses its notification (the sweep finds it)',
  quarantine:
    'a notification the processor cannot read is posted with the right token: it stays in the dead-letter queue',
  'pix-charge': 'a charge (cob) is created and paid by Pix; its callback is delivered',
  'pix-key': 'a Pix is paid to one of the keys, no charge (a static code); its callback is delivered',
  'pix-refund [NATURE]': `the last Pix paid here is refunded in full (${Object.values(RefundNature).join(', ')}; ORIGINAL by default)`,
  'pix-foreign': "another customer's Pix is delivered to our URL: dropped, never published",
  'pix-lose': 'a Pix is paid and the provider loses its callback (the sweep finds it)',
  help: 'these lines',
  quit: 'stop everything',
};

/** The last Pix a control paid (what pix-refund refunds). */
let lastPix: { endToEndId: string; valor: string } | undefined;

async function control(runner: LocalRunner, line: string): Promise<string> {
  const settle = () => runner.settle(60_000);
  const [name, argument] = line.split(/\s+/);
  if (name.startsWith('pix-')) return pixControl(runner, name, argument, settle);
  switch (line) {
    case 'settle': {
      const boleto = await runner.control.createBoleto({ valor: '150.00' });
      await runner.control.settleBoleto(boleto.nossoNumero);
      await settle();
      return `boleto ${boleto.nossoNumero} settled and notified (trace ${boleto.nossoNumero})`;
    }
    case 'notify': {
      const created = await runner.control.createPayment({ tipo: 'pix', valor: '45.60' });
      await runner.control.settlePayment('pix', created.payment.idTransacao);
      await settle();
      return `Pix payment ${created.payment.idTransacao} made and settled, notified (trace ${created.payment.idTransacao})`;
    }
    case 'lose': {
      await runner.control.setFaults({ loseDeliveries: true });
      const boleto = await runner.control.createBoleto({ valor: '77.70' });
      await runner.control.settleBoleto(boleto.nossoNumero);
      await runner.control.clearFaults();
      return `boleto ${boleto.nossoNumero} settled; the bank lost its notification (cdk-bank-webhooks sweep finds it)`;
    }
    case 'quarantine': {
      const answer = await runner.post(
        'payments',
        JSON.stringify({ idTransacao: `unreadable-${Date.now()}`, status: 'PAGO' }),
      );
      await settle();
      return `a payment notification of no known kind answered ${answer.status}; it is in the notifications dead-letter queue (cdk-bank-webhooks dlq list)`;
    }
    case 'help':
    case '':
      return Object.entries(CONTROLS)
        .map(([control, what]) => `  ${control.padEnd(20)}${what}`)
        .join('\n');
    default:
      return `Unknown control "${line}". Type help.`;
  }
}

/** The Pix controls: the simulated provider pays, refunds, delivers another's Pix, or loses a callback. */
async function pixControl(
  runner: LocalRunner,
  name: string,
  argument: string | undefined,
  settle: () => Promise<unknown>,
): Promise<string> {
  const pix = runner.control.pix;
  const paid = (answer: { pix: Array<{ endToEndId: string; valor: string }> }) => {
    lastPix = { endToEndId: answer.pix[0].endToEndId, valor: answer.pix[0].valor };
    return lastPix;
  };
  switch (name) {
    case 'pix-charge': {
      const charge = await pix.createCharge({ valor: '110.00' });
      const { endToEndId } = paid(await pix.payCharge(charge.txid, { infoPagador: 'pedido 42' }));
      await settle();
      return `charge ${charge.txid} paid by Pix ${endToEndId}, notified (trace ${endToEndId})`;
    }
    case 'pix-key': {
      const [chave] = (await pix.state()).keys;
      const { endToEndId } = paid(await pix.payKey(chave, { valor: '9.90', txid: 'LOJA01' }));
      await settle();
      return `Pix ${endToEndId} paid to the key ${chave}, notified (trace ${endToEndId})`;
    }
    case 'pix-refund': {
      if (!lastPix) return 'No Pix paid here yet: pix-charge or pix-key first.';
      const natureza = (argument ?? RefundNature.ORIGINAL).toUpperCase() as RefundNature;
      if (!Object.values(RefundNature).includes(natureza))
        return `Unknown refund nature "${argument}": one of ${Object.values(RefundNature).join(', ')}.`;
      const refund = await pix.refund(lastPix.endToEndId, { valor: lastPix.valor, natureza });
      await pix.settleRefund(lastPix.endToEndId, refund.id, RefundStatus.RETURNED);
      await settle();
      return `Pix ${lastPix.endToEndId} refunded in full (${natureza}, refund ${refund.id}), notified (trace ${lastPix.endToEndId})`;
    }
    case 'pix-foreign': {
      await pix.deliverForeign({ url: runner.pixUrl });
      await settle();
      return "another customer's Pix was delivered to our URL: dropped and counted (ForeignItemsDropped), never published";
    }
    case 'pix-lose': {
      await runner.control.setFaults({ loseDeliveries: true });
      const charge = await pix.createCharge({ valor: '42.00' });
      const { endToEndId } = paid(await pix.payCharge(charge.txid));
      await runner.control.clearFaults();
      return `Pix ${endToEndId} paid (charge ${charge.txid}); the provider lost its callback (cdk-bank-webhooks sweep finds it, then trace ${endToEndId})`;
    }
    default:
      return `Unknown control "${name}". Type help.`;
  }
}

async function main(): Promise<number> {
  if (!bundlesAreFresh()) await bundleHandlers();
  const runner = await LocalRunner.start({
    stack: (app, id) => new LocalReceiverStack(app, id, { pix: true }),
    keepQuarantine: true,
    queueRules: [LOCAL_CONSUMER_RULE],
  });
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= runner.stop());
  process.once('SIGINT', () => void stop().then(() => process.exit(0)));
  process.once('SIGTERM', () => void stop().then(() => process.exit(0)));
  await runner.register();
  console.log(
    [
      `The local stack ${runner.stackName} is up (the example receiver and its stand-ins, on 127.0.0.1). In another shell:`,
      '',
      ...exportLines(runner).map((line) => `  ${line}`),
      '  npx cdk-bank-webhooks status --stack $STACK',
      '',
      `Each function's log (a runbook's "the processor log", "the sweep log"): ${runner.logDir}/<function>.log,`,
      `  receiver, processor, reconciliation (the sweep), registration, consumer; e.g. tail -f ${runner.logDir}/processor.log`,
      '',
      'Then follow docs/operations.md ("Runbooks"). Controls here, one a line:',
      ...(await control(runner, 'help')).split('\n'),
      'Ready.',
    ].join('\n'),
  );
  const lines = createInterface({ input: process.stdin });
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === 'quit') break;
    try {
      console.log(await control(runner, line));
    } catch (error) {
      console.log(`That failed: ${(error as Error).message}`);
    }
    console.log('Ready.');
  }
  await stop();
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(
        `The local stack failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      process.exit(1);
    },
  );
}
