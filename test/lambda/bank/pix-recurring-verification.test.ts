/**
 * Pix Automático verified (issue 66): each idRec of a `/rec` callback and each txid of a `/cobr`
 * callback is its own subject, read under our credentials (`GET /rec/{idRec}`, `GET /cobr/{txid}`);
 * what is published is what the provider shows, never the callback's body; a 404 is another
 * customer's; only the receiver that takes the account's Pix Automático publishes, and a charge
 * paying into another account is not ours. No recurring event carries money.
 */
import { BankEventDetailType as T, EventTrigger, StatusClass as C } from '../../../contracts/events';
import { ProcessorMetric } from '../../../contracts/processor';
import { processBatch } from '../../../lambda/processor/batch';
import { encodeLookRequest } from '../../../lambda/store/look-request';
import { contextWith, rawRecord, sqsRecord } from '../../support/processor-records';
import { chargeTxid, e2e, fakePixDeps, pixElement } from '../../support/pix-records';

type Fakes = ReturnType<typeof fakePixDeps>;
const run = (f: Fakes, records: ReturnType<typeof sqsRecord>[]) =>
  processBatch({ Records: records }, contextWith(f.clock), f.deps);
/** The account's receiver for keyless Pix, taking its Pix Automático. */
const recurring = () => fakePixDeps({}, { pixKeyless: true, pixRecurring: true });

let recSequence = 0;
const idRec = () => `RR0000000020261129${String(++recSequence).padStart(11, '0')}`;

function recElement(id: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    idRec: id,
    status,
    politicaRetentativa: 'PERMITE_3R_7D',
    ativacao: { tipoJornada: 'JORNADA_3' },
    recebedor: { cnpj: '12345678000199', nome: 'Empresa', ispbParticipante: '01181521' },
    valor: { valorRec: '49.90' },
    atualizacao: [{ status: 'CRIADA', data: '2026-11-29T10:00:00.000Z' }],
    ...extra,
  };
}

function cobrElement(txid: string, rec: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    idRec: rec,
    txid,
    status,
    valor: { original: '49.90' },
    calendario: { dataDeVencimento: '2026-12-10' },
    recebedor: { agencia: '0101', conta: '123456', tipoConta: 'CORRENTE' },
    atualizacao: [{ status: 'CRIADA', data: '2026-11-29T10:00:00.000Z' }],
    ...extra,
  };
}

const recCallback = (...ids: string[]) => sqsRecord('rec', { recs: ids.map((id) => ({ idRec: id })) });
const cobrCallback = (...txids: string[]) => sqsRecord('cobr', { cobsr: txids.map((txid) => ({ txid })) });

describe('a recurrence is published as the provider shows it', () => {
  it('approved: GET /rec, one Pix Recurrence Changed with what the provider shows, not what the callback says', async () => {
    const f = recurring();
    const id = idRec();
    f.provider.holdsRec(recElement(id, 'APROVADA'));
    const result = await run(f, [sqsRecord('rec', { recs: [{ idRec: id, status: 'CANCELADA' }] })]);
    expect(result.batchItemFailures).toEqual([]);
    expect(f.provider.calls).toEqual([`GET /rec/${id}`]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECURRENCE_CHANGED]);
    expect(f.published[0].detail).toMatchObject({
      account: { cooperativa: '0101', posto: '02', conta: '123456' },
      subject: { kind: 'pix-recurrence', id: `pix-recurrence:${id}`, sequence: 1, idRec: id },
      state: { status: 'APROVADA', statusClass: C.OPEN },
      recurrence: { idRec: id, status: 'APROVADA', tipoJornada: 'JORNADA_3', politicaRetentativa: 'PERMITE_3R_7D' },
      matchesNotification: true,
    });
    expect(f.published[0].detail.state.amount).toBeUndefined();
  });

  it('the same body again after a cancellation is looked at again: the cancellation, who and why, published once', async () => {
    const f = recurring();
    const id = idRec();
    f.provider.holdsRec(recElement(id, 'APROVADA'));
    await run(f, [recCallback(id)]);
    f.provider.holdsRec(
      recElement(id, 'CANCELADA', {
        encerramento: { cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'SLCR', descricao: 'a pedido' } },
      }),
    );
    await run(f, [recCallback(id)]);
    await run(f, [recCallback(id)]);
    expect(f.provider.calls).toHaveLength(3);
    expect(f.published.map((e) => [e.detailType, e.detail.subject.sequence, e.detail.state.status])).toEqual([
      [T.PIX_RECURRENCE_CHANGED, 1, 'APROVADA'],
      [T.PIX_RECURRENCE_CHANGED, 2, 'CANCELADA'],
    ]);
    expect(f.published[1].detail).toMatchObject({
      previousState: { status: 'APROVADA' },
      state: { statusClass: C.CANCELLED },
      recurrence: {
        ending: { kind: 'cancellation', solicitante: 'USUARIO_PAGADOR', codigo: 'SLCR', descricao: 'a pedido' },
      },
    });
    expect(f.counts[ProcessorMetric.DUPLICATES]).toBeUndefined();
  });

  it('keeps a recurrence in the index the sweep follows while it is not final, and takes it out once it is', async () => {
    const f = recurring();
    const id = idRec();
    f.provider.holdsRec(recElement(id, 'APROVADA'));
    await run(f, [recCallback(id)]);
    expect(f.store.records.get(`pix-recurrence:${id}`)?.pendingSince).toBeDefined();
    f.provider.holdsRec(recElement(id, 'EXPIRADA'));
    await run(f, [recCallback(id)]);
    expect(f.store.records.get(`pix-recurrence:${id}`)?.pendingSince).toBeUndefined();
  });

  it("a recurrence our credentials do not see is another customer's: counted, nothing published, nothing quarantined", async () => {
    const f = recurring();
    await run(f, [recCallback(idRec())]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.FOREIGN]).toBe(1);
  });

  it("a receiver that does not take the account's Pix Automático asks nothing and publishes nothing", async () => {
    const f = fakePixDeps({}, { pixKeyless: true });
    const id = idRec();
    f.provider.holdsRec(recElement(id, 'APROVADA'));
    await run(f, [recCallback(id)]);
    expect(f.provider.calls).toEqual([]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(1);
  });

  it('an item without a valid idRec is quarantined with its reason; the others of its callback verified', async () => {
    const f = recurring();
    const id = idRec();
    f.provider.holdsRec(recElement(id, 'CRIADA'));
    await run(f, [sqsRecord('rec', { recs: [{ idRec: 'short' }, { idRec: id }] })]);
    expect(f.published.map((e) => e.detail.state.status)).toEqual(['CRIADA']);
    expect(f.quarantined.map((q) => q.reason)).toEqual(['recs[0] has no valid idRec (29 letters and digits)']);
  });

  it("a body without recs is the provider's validation call: nothing asked, nothing quarantined", async () => {
    const f = recurring();
    await run(f, [sqsRecord('rec', {})]);
    expect(f.provider.calls).toEqual([]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
  });
});

describe('a recurring charge is published at each status and each attempt, never with money', () => {
  it('scheduled, rejected with a retry, paid: one event each, the attempt named by its end-to-end id', async () => {
    const f = recurring();
    const rec = idRec();
    const txid = chargeTxid('cobr');
    const [first, retry] = [e2e(), e2e()];
    const attempt = (endToEndId: string, status: string, more: Record<string, unknown> = {}) => ({
      endToEndId,
      status,
      tipo: 'AGND',
      dataLiquidacao: '2026-12-10',
      ...more,
    });
    f.provider.holdsCobr(cobrElement(txid, rec, 'ATIVA', { tentativas: [attempt(first, 'AGENDADA')] }));
    await run(f, [cobrCallback(txid)]);
    f.provider.holdsCobr(
      cobrElement(txid, rec, 'ATIVA', {
        tentativas: [attempt(first, 'REJEITADA', { rejeicao: { codigo: 'AM04', descricao: 'saldo insuficiente' } })],
      }),
    );
    await run(f, [cobrCallback(txid)]);
    f.provider.holdsCobr(
      cobrElement(txid, rec, 'CONCLUIDA', {
        tentativas: [attempt(first, 'REJEITADA'), attempt(retry, 'PAGA', { tipo: 'RIFL' })],
        pix: [{ endToEndId: retry, valor: '49.90', horario: '2026-12-11T09:00:00.000Z' }],
      }),
    );
    await run(f, [cobrCallback(txid)]);
    await run(f, [cobrCallback(txid)]);
    expect(f.published.map((e) => [e.detailType, e.detail.subject.sequence, e.detail.state.statusClass])).toEqual([
      [T.PIX_RECURRING_CHARGE_CHANGED, 1, C.OPEN],
      [T.PIX_RECURRING_CHARGE_CHANGED, 2, C.OPEN],
      [T.PIX_RECURRING_CHARGE_CHANGED, 3, C.SETTLED],
    ]);
    expect(f.published[0].detail).toMatchObject({
      subject: { kind: 'pix-recurring-charge', id: `pix-recurring-charge:${txid}`, txid },
      recurringCharge: {
        txid,
        idRec: rec,
        status: 'ATIVA',
        dueDate: '2026-12-10',
        attempt: { endToEndId: first, status: 'AGENDADA', tipo: 'AGND' },
      },
    });
    expect(f.published[1].detail.recurringCharge.attempt).toEqual({
      endToEndId: first,
      status: 'REJEITADA',
      tipo: 'AGND',
      dataLiquidacao: '2026-12-10',
      rejectionCode: 'AM04',
      rejectionDescription: 'saldo insuficiente',
    });
    expect(f.published[2].detail.recurringCharge).toMatchObject({
      status: 'CONCLUIDA',
      attempt: { endToEndId: retry, status: 'PAGA', tipo: 'RIFL' },
      paidBy: [retry],
    });
    for (const event of f.published) {
      expect(event.detail.state.amount).toBeUndefined();
      expect(event.detail.pix).toBeUndefined();
    }
  });

  it("a charge paying into another account is not this receiver's: recorded, never published", async () => {
    const f = recurring();
    const txid = chargeTxid('cobr');
    f.provider.holdsCobr(cobrElement(txid, idRec(), 'ATIVA', { recebedor: { agencia: '0101', conta: '999999' } }));
    await run(f, [cobrCallback(txid)]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(1);
    expect([...f.store.records.values()][0]).toMatchObject({
      notAttributed: expect.stringContaining('another account'),
    });
  });

  it('an account number written with leading zeros and a dash is the same account', async () => {
    const f = recurring();
    const txid = chargeTxid('cobr');
    f.provider.holdsCobr(cobrElement(txid, idRec(), 'CRIADA', { recebedor: { agencia: '101', conta: '00123456' } }));
    await run(f, [cobrCallback(txid)]);
    expect(f.published.map((e) => e.detail.state.status)).toEqual(['CRIADA']);
  });

  it('a look request names a recurring charge by its txid, checked like any field anyone may write', async () => {
    const f = recurring();
    const txid = chargeTxid('cobr');
    f.provider.holdsCobr(cobrElement(txid, idRec(), 'EXPIRADA'));
    const look = (subject: Record<string, unknown>) =>
      rawRecord(
        encodeLookRequest({
          trigger: EventTrigger.RECONCILIATION,
          subject: subject as never,
          requestedAt: '2026-11-29T12:00:00Z',
          reason: 'a test',
        }),
        { senderId: 'x' },
      );
    await run(f, [look({ kind: 'pix-recurring-charge', txid })]);
    expect(f.published.map((e) => [e.detailType, e.detail.trigger, e.detail.state.statusClass])).toEqual([
      [T.PIX_RECURRING_CHARGE_CHANGED, 'reconciliation', C.CANCELLED],
    ]);
    await run(f, [look({ kind: 'pix-recurring-charge', txid: '../../cobr' })]);
    expect(f.quarantined.map((q) => q.reason)).toEqual([
      expect.stringContaining('names txid "../../cobr"; it must be a charge\'s txid (26 to 35 letters and digits)'),
    ]);
  });
});

describe("a recurring charge's Pix is the account's whose charge it paid", () => {
  const paying = (conta: string) => {
    const f = recurring();
    const txid = chargeTxid('cobr');
    const pix = pixElement(e2e(), { txid, valor: '49.90', chave: null });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cobr', [pix], 'CONCLUIDA', '49.90');
    const held = f.provider.charges.get(`cobr/${txid}`)!;
    f.provider.charges.set(`cobr/${txid}`, { ...held, account: { agencia: '0101', conta } });
    return { f, pix };
  };

  it("published as Pix Received with its cobr when the charge pays into the receiver's account", async () => {
    const { f, pix } = paying('123456');
    await run(f, [sqsRecord('pix', { pix: [pix] })]);
    expect(f.published.map((e) => [e.detailType, e.detail.pix?.charge?.kind])).toEqual([[T.PIX_RECEIVED, 'cobr']]);
  });

  it("another account's recurring charge: recorded as another receiver's, never published", async () => {
    const { f, pix } = paying('654321');
    await run(f, [sqsRecord('pix', { pix: [pix] })]);
    expect(f.published).toEqual([]);
    expect(f.quarantined).toEqual([]);
    expect(f.counts[ProcessorMetric.NOT_ATTRIBUTED]).toBe(1);
  });
});
