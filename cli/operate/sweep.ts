/**
 * `cdk-bank-webhooks sweep`: runs the receiver's reconciliation sweep now (the function its
 * schedule runs every 15 minutes, invoked and waited for) and prints what it found.
 */
import { InvokeCommand } from '@aws-sdk/client-lambda';
import { CliExit, type OperatorManifest } from '../../contracts/operations';
import type { SweepResult } from '../../contracts/reconciliation';
import { formatTable } from '../table';
import { type AwsClients, OperatorError } from './aws';

/** Invokes the sweep as its schedule would (a Scheduled Event of `now`), and waits for its result. */
export async function runSweep(aws: AwsClients, manifest: OperatorManifest, now: number): Promise<SweepResult> {
  const name = manifest.functions.sweep;
  if (!name) {
    throw new OperatorError(
      `Receiver ${manifest.receiverName} has no reconciliation sweep (${manifest.stage === 'NON_PRODUCTION' ? 'it is NON_PRODUCTION' : 'reconciliation.enabled is false'}).`,
      CliExit.NOT_FOUND,
    );
  }
  const event = {
    version: '0',
    id: `operator-sweep-${now}`,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    time: new Date(now).toISOString(),
    region: '',
    account: '',
    resources: [],
    detail: { operator: true },
  };
  const answer = await aws.lambda.send(
    new InvokeCommand({
      FunctionName: name,
      InvocationType: 'RequestResponse',
      Payload: Buffer.from(JSON.stringify(event)),
    }),
  );
  const text = answer.Payload ? Buffer.from(answer.Payload).toString('utf8') : 'null';
  if (answer.FunctionError) {
    const error = JSON.parse(text) as { errorType?: string; errorMessage?: string };
    throw new OperatorError(
      `The sweep failed (${error.errorType ?? answer.FunctionError}): ${error.errorMessage ?? text}. Its log group has the details.`,
      CliExit.FAILED,
    );
  }
  return JSON.parse(text) as SweepResult;
}

export function formatSweep(r: SweepResult): string {
  const lines = [
    `Sweep ${r.complete ? 'complete' : 'INCOMPLETE (the next sweep resumes from the cursors)'}: ${r.bankCalls} listing call(s)`,
    `  listed changes sent to be verified ${r.settlementsToVerify} (${r.settlementsKnown} listed ones already held)`,
    `  pending payments sent             ${r.paymentsToVerify}${r.paymentsGivenUp ? ` (${r.paymentsGivenUp} given up)` : ''}`,
  ];
  if (r.days.length)
    lines.push(
      '',
      formatTable(
        ['listing', 'bank day', 'pages', 'items', 'restarted'],
        r.days.map((d) => [d.listing ?? 'boleto', d.day, String(d.pages), String(d.items), d.restarted ? 'yes' : 'no']),
      ),
    );
  if (r.registrations?.length) {
    lines.push(
      '',
      formatTable(
        ['registration', 'state', 'drift', 'repaired'],
        r.registrations.map((f) => [
          f.registration,
          f.state,
          f.drift.join(', ') || '-',
          f.repaired ? 'yes' : f.notRepaired ? `no: ${f.notRepaired}` : '-',
        ]),
      ),
    );
  }
  lines.push(
    '',
    r.settlementsToVerify + r.paymentsToVerify
      ? 'What it sent is verified through the look queue: follow it with status and trace.'
      : 'Nothing to verify: everything the listings show is held.',
  );
  return lines.join('\n');
}
