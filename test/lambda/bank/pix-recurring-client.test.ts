/**
 * The Pix client's Pix Automático operations against the simulator's standard Pix API over HTTPS:
 * a recurrence and a recurring charge read in full under our credentials (404: not ours), the
 * account's two webhooks, each operation under its own scope; and the readers, which refuse what
 * the standard requires and is missing and keep what a slip leaves readable.
 */
import type { PixCredentials } from '../../../contracts/pix-connection';
import {
  AttemptStatus,
  CancelledBy,
  RecStatus,
  RecurringChargeStatus,
  RecurringWebhookKind,
  RetryPolicy,
} from '../../../contracts/pix-recurring';
import { BankApiError } from '../../../lambda/bank/errors';
import { PixClient } from '../../../lambda/bank/pix/client';
import { readRecurrence, readRecurringCharge } from '../../../lambda/bank/pix/recurring-answers';
import { parseRecurringNotification } from '../../../lambda/bank/pix/recurring-notification';
import { BankSimulator } from '../../../simulator/simulator';

let simulator: BankSimulator;
const clients: PixClient[] = [];

beforeAll(async () => {
  simulator = await BankSimulator.start();
});

afterAll(async () => {
  clients.forEach((c) => c.close());
  await simulator?.stop();
});

function pixClient(scopes: Record<string, string> = {}): PixClient {
  const credentials: PixCredentials = {
    clientId: simulator.credentials.pix!.clientId,
    clientSecret: simulator.credentials.pix!.clientSecret,
    clientCertificate: simulator.pixClientCertPem,
    clientKey: simulator.pixClientKeyPem,
    caCertificates: simulator.caPem,
  };
  const pix = new PixClient({
    settings: {
      baseUrl: simulator.baseUrl,
      tokenUrl: simulator.info.pixTokenUrl,
      credentialsSecretArn: 'arn:aws:secretsmanager:us-east-1:111111111111:secret:pix',
      scopes,
    },
    credentials: () => Promise.resolve(credentials),
    retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
  });
  clients.push(pix);
  return pix;
}

const soon = () => Date.now() + 20_000;

describe('the client', () => {
  it("reads a recurrence and its charges in full under our credentials, and another customer's as not there (404)", async () => {
    const pix = pixClient();
    const rec = await simulator.control.pix.createRecurrence({
      valorRec: '59.90',
      politicaRetentativa: RetryPolicy.THREE_IN_SEVEN_DAYS,
    });
    await simulator.control.pix.approveRecurrence(rec.idRec);
    const charge = await simulator.control.pix.issueRecurringCharge(rec.idRec, { dataDeVencimento: '2026-12-10' });
    await simulator.control.pix.failRecurringAttempt(charge.txid, { codigo: 'AM02' });
    const { paidPix } = await simulator.control.pix.payRecurringCharge(charge.txid);
    expect(await pix.getRecurrence(rec.idRec, soon())).toEqual({
      idRec: rec.idRec,
      status: RecStatus.APPROVED,
      history: [
        { status: RecStatus.CREATED, at: expect.any(String) },
        { status: RecStatus.APPROVED, at: expect.any(String) },
      ],
      journey: 'JORNADA_2',
      receiver: { cnpj: expect.stringMatching(/^\d{14}$/), ispbParticipante: '01181521' },
      retryPolicy: RetryPolicy.THREE_IN_SEVEN_DAYS,
      fixedAmount: '59.90',
    });
    expect(await pix.getRecurringCharge(charge.txid, soon())).toEqual({
      idRec: rec.idRec,
      txid: charge.txid,
      status: RecurringChargeStatus.CONCLUDED,
      valorOriginal: '59.90',
      dueDate: '2026-12-10',
      receiver: { agencia: expect.stringMatching(/^\d{4}$/), conta: expect.any(String) },
      history: [
        { status: RecurringChargeStatus.CREATED, at: expect.any(String) },
        { status: RecurringChargeStatus.ACTIVE, at: expect.any(String) },
        { status: RecurringChargeStatus.CONCLUDED, at: expect.any(String) },
      ],
      attempts: [
        {
          endToEndId: charge.tentativas[0].endToEndId,
          status: AttemptStatus.REJECTED,
          kind: 'AGND',
          settlementDate: '2026-12-10',
          rejection: { codigo: 'AM02', descricao: 'Tentativa rejeitada' },
        },
        {
          endToEndId: paidPix.endToEndId,
          status: AttemptStatus.PAID,
          kind: 'RIFL',
          settlementDate: '2026-12-11',
        },
      ],
      paidBy: [paidPix.endToEndId],
    });
    expect(await pix.getRecurrence('RN0118152120260101abcdefghijk', soon())).toBeUndefined();
    expect(await pix.getRecurringCharge('a'.repeat(32), soon())).toBeUndefined();
  });

  it('reads how a recurrence ended, who cancelled and why', async () => {
    const pix = pixClient();
    const rec = await simulator.control.pix.createRecurrence();
    await simulator.control.pix.cancelRecurrence(rec.idRec, {
      solicitante: CancelledBy.PAYER_PROVIDER,
      codigo: 'FRUD',
    });
    expect(await pix.getRecurrence(rec.idRec, soon())).toMatchObject({
      status: RecStatus.CANCELLED,
      ending: { kind: 'cancellation', by: CancelledBy.PAYER_PROVIDER, codigo: 'FRUD', descricao: expect.any(String) },
    });
  });

  it('registers, reads and removes the account webhooks, each under its own scope; a removal of none is false', async () => {
    const pix = pixClient();
    await pix.putAccountWebhook(RecurringWebhookKind.REC, 'https://receiver.example.com/pix', soon());
    await pix.putAccountWebhook(RecurringWebhookKind.COBR, 'https://receiver.example.com/pix', soon());
    expect(await pix.getAccountWebhook(RecurringWebhookKind.REC, soon())).toEqual({
      webhookUrl: 'https://receiver.example.com/pix',
    });
    expect(await pix.deleteAccountWebhook(RecurringWebhookKind.COBR, soon())).toBe(true);
    expect(await pix.getAccountWebhook(RecurringWebhookKind.COBR, soon())).toBeUndefined();
    expect(await pix.deleteAccountWebhook(RecurringWebhookKind.COBR, soon())).toBe(false);
    // A provider that wants another scope: the 403 names the setting to change.
    const narrow = pixClient({ recQuery: 'pix.read' });
    await expect(narrow.getRecurrence('RN0118152120260101abcdefghijk', soon())).rejects.toThrow(
      /scope "pix\.read".*scopes\.recQuery/,
    );
  });

  it('sends nothing for an id that is not one: an idRec is 29 letters and digits', async () => {
    const pix = pixClient();
    const refused = pix.getRecurrence('../webhook', soon());
    await expect(refused).rejects.toBeInstanceOf(BankApiError);
    await expect(refused).rejects.toThrow(/not sent: an idRec is 29 letters and digits/);
  });
});

describe('the readers', () => {
  const rec = {
    idRec: 'RR1234567820240115abcdefghijk',
    status: 'APROVADA',
    atualizacao: [{ status: 'CRIADA', data: '2024-08-20T10:12:07.567Z' }, { status: 'NOVO', data: 'x' }, 'junk'],
    ativacao: { tipoJornada: 'JORNADA_3', dadosJornada: { txid: 'r9eFIFmwcZ55Nm4RsKZAAtIvvCrlcNN6' } },
  };

  it("refuse a recurrence without its id or with a status the standard does not define, naming the operation's field", () => {
    expect(() => readRecurrence({ ...rec, idRec: 'short' }, 'recurrence query', 200)).toThrow(
      /recurrence query.*the answer has no valid rec\.idRec/,
    );
    expect(() => readRecurrence({ ...rec, status: 'ATIVA' }, 'recurrence query', 200)).toThrow(
      /unknown recurrence status \(ATIVA\)/,
    );
    expect(() => readRecurrence([rec], 'recurrence query', 200)).toThrow(/no object at rec/);
  });

  it('keep what is readable of a history, and leave out an entry with an unknown status or no object', () => {
    expect(readRecurrence(rec, 'q', 200)).toEqual({
      idRec: rec.idRec,
      status: RecStatus.APPROVED,
      history: [{ status: 'CRIADA', at: '2024-08-20T10:12:07.567Z' }],
      journey: 'JORNADA_3',
      receiver: {},
    });
  });

  it("keep an attempt dated with the standard example's month 20 as written, and drop an attempt with no end-to-end id", () => {
    const cobr = {
      idRec: rec.idRec,
      txid: '3136957d93134f2184b369e8f1c0729d',
      status: 'ATIVA',
      valor: { original: '10.00' },
      atualizacao: [{ status: 'ATIVA', data: '2024-08-20T12:34:21.300Z' }],
      tentativas: [
        {
          dataLiquidacao: '2024-20-08',
          tipo: 'AGND',
          status: 'SOLICITADA',
          endToEndId: 'E12345678202406201221abcdef12345',
        },
        { dataLiquidacao: '2024-08-21', tipo: 'RIFL', status: 'AGENDADA' },
      ],
    };
    expect(readRecurringCharge(cobr, 'q', 200).attempts).toEqual([
      {
        endToEndId: 'E12345678202406201221abcdef12345',
        status: AttemptStatus.REQUESTED,
        kind: 'AGND',
        settlementDate: '2024-20-08',
      },
    ]);
    expect(() => readRecurringCharge({ ...cobr, pix: [{ valor: '10.00' }] }, 'q', 200)).toThrow(
      /no valid cobr\.pix\[0\]\.endToEndId/,
    );
    expect(() => readRecurringCharge({ ...cobr, valor: undefined }, 'q', 200)).toThrow(/no object at cobr\.valor/);
  });

  it('read only the ids a callback names, one subject each, counting the items that name none', () => {
    const read = (route: 'rec' | 'cobr', body: unknown) => {
      const { items, problems } = parseRecurringNotification(route, Buffer.from(JSON.stringify(body)));
      const ids = items.map((item) => String(item.raw.idRec ?? item.raw.txid));
      return { ids: [...new Set(ids)], unreadable: problems.length };
    };
    expect(
      read('rec', { recs: [{ idRec: rec.idRec, status: 'CANCELADA' }, { idRec: rec.idRec }, { idRec: '../x' }, 7] }),
    ).toEqual({ ids: [rec.idRec], unreadable: 2 });
    expect(read('cobr', { cobsr: [{ txid: 'a'.repeat(26) }] })).toEqual({ ids: ['a'.repeat(26)], unreadable: 0 });
    // A body of the other kind, or none, names nothing.
    expect(read('rec', { cobsr: [{ txid: 'a'.repeat(26) }] })).toEqual({ ids: [], unreadable: 0 });
  });
});
