/**
 * Verified Pix at a peak (issue 67): once a callback waited past the bound, the processor verifies
 * Pix by the provider's listings, under the same rules as the single reads, and reads one by one
 * whatever a listing does not show.
 */
import { BankEventDetailType as T, PixChargeKind } from '../../../contracts/events';
import type { PixBulkSettings } from '../../../contracts/processor';
import type { StoredNotification } from '../../../contracts/receiver';
import { BulkAnswers, BulkDefaults, type BulkLister } from '../../../lambda/bank/pix/bulk';
import type { ChargePageRead, ChargeRead, PixPageRead, PixRead } from '../../../lambda/bank/pix/answers';
import { processBatch } from '../../../lambda/processor/batch';
import { encodeStoredNotification } from '../../../lambda/store/stored-notification';
import { contextWith, sqsRecord } from '../../support/processor-records';
import { chargeTxid, e2e, fakePixDeps, FakePix, pixElement } from '../../support/pix-records';

const SETTINGS: PixBulkSettings = { afterSeconds: 10, chargeReachMinutes: 60 };

/** The fake provider, also answering its listings (what it holds, by the Pix's time and the charges' creation). */
class ListingFakePix extends FakePix implements BulkLister {
  /** When each charge was created (epoch ms). */
  readonly created = new Map<string, number>();
  /** Pix the listing leaves out (the provider's lag), by end-to-end id. */
  readonly unlisted = new Set<string>();
  pageSize?: number;

  async listPix(window: { inicio: string; fim: string }, page: number): Promise<PixPageRead> {
    this.calls.push(`GET /pix?inicio=${window.inicio}&page=${page}`);
    const [from, to] = [Date.parse(window.inicio), Date.parse(window.fim)];
    const all = [...this.pix.values()].filter(
      (p) => !this.unlisted.has(p.endToEndId) && Date.parse(p.horario) >= from && Date.parse(p.horario) <= to,
    );
    return this.page(all, page, (items) => ({ pix: items }));
  }

  async listCharges(
    kind: PixChargeKind.COB | PixChargeKind.COBV,
    window: { inicio: string; fim: string },
    page: number,
    _deadline: number,
    options: { status?: string } = {},
  ): Promise<ChargePageRead> {
    this.calls.push(`GET /${kind}?page=${page}`);
    const [from, to] = [Date.parse(window.inicio), Date.parse(window.fim)];
    const all: ChargeRead[] = [...this.charges.entries()]
      .filter(([key, c]) => key.startsWith(`${kind}/`) && (!options.status || c.status === options.status))
      .filter(([key]) => (this.created.get(key) ?? from) >= from && (this.created.get(key) ?? from) <= to)
      .map(([, { kind: _k, ...read }]) => read);
    return this.page(all, page, (items) => ({ cobs: items }));
  }

  private page<T, R>(all: T[], page: number, wrap: (items: T[]) => R) {
    const size = this.pageSize ?? 1000;
    const quantidadeDePaginas = Math.max(1, Math.ceil(all.length / size));
    return { ...wrap(all.slice(page * size, (page + 1) * size)), paginaAtual: page, quantidadeDePaginas };
  }
}

class Clock {
  constructor(public time = Date.parse('2026-11-27T12:10:00Z')) {}
  now = () => this.time;
  sleep = async (ms: number) => {
    this.slept.push(ms);
    this.time += ms;
  };
  readonly slept: number[] = [];
}

const AT = Date.parse('2026-11-27T12:00:01Z');
const read = (provider: FakePix, endToEndId: string): PixRead => provider.pix.get(endToEndId)!;

describe('BulkAnswers: a listing stands for the single reads it shows', () => {
  function bulkWith(provider = new ListingFakePix(), clock = new Clock()) {
    const bulk = new BulkAnswers(provider, SETTINGS, { now: clock.now, sleep: clock.sleep });
    return { bulk, provider, clock };
  }

  it('is off until a callback waited past the bound, and for a minute after the last one that did', () => {
    const { bulk, clock } = bulkWith();
    expect(bulk.answersFor(AT, AT)).toBeUndefined();
    bulk.saw(9_999);
    expect(bulk.answersFor(AT, AT)).toBeUndefined();
    bulk.saw(10_000);
    expect(bulk.answersFor(AT, AT)).toBeDefined();
    clock.time += BulkDefaults.holdMs;
    expect(bulk.answersFor(AT, AT)).toBeUndefined();
  });

  it('one listing of a window answers for each of its Pix; its pages are all read; a Pix outside it is not listed there', async () => {
    const { bulk, provider } = bulkWith();
    provider.pageSize = 2;
    const ids = [1, 2, 3, 4, 5].map(() => e2e());
    ids.forEach((id, i) => provider.holds(pixElement(id, { txid: 'QR1', horario: `2026-11-27T12:00:0${i}.000Z` })));
    bulk.saw(60_000);
    const found = await Promise.all(ids.map((id) => bulk.answersFor(AT, AT)!.pix(id, Infinity)));
    expect(found.map((p) => p?.endToEndId)).toEqual(ids);
    expect(provider.calls).toEqual([0, 1, 2].map((page) => `GET /pix?inicio=2026-11-27T12:00:00Z&page=${page}`));
    expect(bulk.calls).toBe(3);
  });

  it('a Pix missing from a listing read before its callback was stored is listed again (once, at most every second); missing from one read after, it is left to its single read', async () => {
    const { bulk, provider, clock } = bulkWith();
    const [early, late] = [e2e(), e2e()];
    provider.holds(pixElement(early, { horario: '2026-11-27T12:00:02.000Z' }));
    bulk.saw(60_000);
    await bulk.answersFor(AT, AT)!.pix(early, Infinity);
    // The second Pix happens after the listing, and its callback is stored now.
    provider.holds(pixElement(late, { horario: '2026-11-27T12:00:03.000Z' }));
    const storedAt = clock.now();
    expect((await bulk.answersFor(AT, storedAt)!.pix(late, Infinity))?.endToEndId).toBe(late);
    expect(clock.slept).toEqual([BulkDefaults.lagMs]);
    expect(provider.calls).toHaveLength(2);
    // Not in a listing read after its callback (the provider's lag, or not ours): no third listing.
    const lagging = e2e();
    expect(await bulk.answersFor(AT, AT)!.pix(lagging, Infinity)).toBeUndefined();
    expect(provider.calls).toHaveLength(2);
  });

  it('concurrent looks needing a fresher listing share one read', async () => {
    const { bulk, provider, clock } = bulkWith();
    const ids = [e2e(), e2e(), e2e()];
    ids.forEach((id) => provider.holds(pixElement(id, { horario: '2026-11-27T12:00:04.000Z' })));
    bulk.saw(60_000);
    const storedAt = clock.now() - 5_000;
    const found = await Promise.all(ids.map((id) => bulk.answersFor(AT, storedAt)!.pix(id, Infinity)));
    expect(found.every((p) => p !== undefined)).toBe(true);
    expect(provider.calls).toHaveLength(1);
  });

  it('no time left to wait for a fresher listing: read one by one', async () => {
    const { bulk, provider, clock } = bulkWith();
    bulk.saw(60_000);
    const id = e2e();
    provider.holds(pixElement(id));
    expect(await bulk.answersFor(AT, clock.now())!.pix(id, clock.now() + 1_500)).toBeUndefined();
    expect(provider.calls).toEqual([]);
  });

  it('a charge concluded by the Pix is taken from the listing of concluded charges created within the reach', async () => {
    const { bulk, provider, clock } = bulkWith();
    const [txid, old] = [chargeTxid(), chargeTxid()];
    const pix = pixElement(e2e(), { txid });
    const earlier = pixElement(e2e(), { txid: old });
    provider.holds(pix);
    provider.holds(earlier);
    provider.charge(txid, 'cob', [pix]);
    provider.charge(old, 'cob', [earlier]);
    provider.created.set(`cob/${old}`, clock.now() - 61 * 60_000);
    bulk.saw(60_000);
    const answers = bulk.answersFor(AT, AT)!;
    expect((await answers.concludedCharge(read(provider, pix.endToEndId as string), Infinity))?.read.txid).toBe(txid);
    // Created before the reach: not listed, read one by one.
    expect(await answers.concludedCharge(read(provider, earlier.endToEndId as string), Infinity)).toBeUndefined();
    expect(provider.calls).toEqual(['GET /cob?page=0', 'GET /cobv?page=0']);
  });

  it('a kind of charge whose listing has more pages than the charges looked up is read one by one', async () => {
    const { bulk, provider } = bulkWith();
    provider.pageSize = 1;
    const txids = [chargeTxid(), chargeTxid(), chargeTxid()];
    txids.forEach((t) => provider.charge(t, 'cob', [pixElement(e2e(), { txid: t })]));
    const pix = pixElement(e2e(), { txid: txids[0] });
    provider.holds(pix);
    bulk.saw(60_000);
    expect(
      await bulk.answersFor(AT, AT)!.concludedCharge(read(provider, pix.endToEndId as string), Infinity),
    ).toBeUndefined();
    expect(provider.calls).toEqual(['GET /cob?page=0', 'GET /cobv?page=0']);
  });

  it('a listing that fails leaves every Pix to its single read, and none is listed for a minute', async () => {
    const { bulk, provider, clock } = bulkWith();
    provider.listPix = async () => {
      provider.calls.push('GET /pix (500)');
      throw new Error('the provider answered 500');
    };
    bulk.saw(60_000);
    expect(await bulk.answersFor(AT, AT)!.pix(e2e(), Infinity)).toBeUndefined();
    expect(bulk.answersFor(AT, AT)).toBeUndefined();
    clock.time += BulkDefaults.failureBackoffMs;
    bulk.saw(60_000);
    expect(bulk.answersFor(AT, AT)).toBeDefined();
    expect(provider.calls).toEqual(['GET /pix (500)']);
  });

  it('a page numbered otherwise than asked ends the listing: what it left out is read one by one', async () => {
    const { bulk, provider } = bulkWith();
    provider.pageSize = 1;
    const ids = [e2e(), e2e()];
    ids.forEach((id) => provider.holds(pixElement(id)));
    const listPix = provider.listPix.bind(provider);
    provider.listPix = async (window, page) => ({ ...(await listPix(window, page)), paginaAtual: 0 });
    bulk.saw(60_000);
    const answers = bulk.answersFor(AT, AT)!;
    expect((await answers.pix(ids[0], Infinity))?.endToEndId).toBe(ids[0]);
    expect(await answers.pix(ids[1], Infinity)).toBeUndefined();
    expect(provider.calls).toHaveLength(2);
  });
});

describe('the processor verifies by listing at a peak, under the same rules', () => {
  /** A receiver behind mutual TLS with a pin, bulk verification on, its Pix client listing too. */
  function peak(options: { authenticated?: boolean } = {}) {
    const f = fakePixDeps({}, { pixCallbacksAuthenticated: options.authenticated ?? true, pixBulk: SETTINGS });
    const provider = new ListingFakePix();
    const deps = { ...f.deps, bank: { clients: { ...f.deps.bank.clients, pix: provider } } };
    return { ...f, deps, provider };
  }
  /** A callback the receiver stored `waitedMs` before the fake clock's now. */
  const stored = (f: ReturnType<typeof peak>, waitedMs: number, pix: Record<string, unknown>[], receiveCount = 1) => {
    const record = sqsRecord('pix', { pix }, { receiveCount });
    const receivedAt = new Date(f.clock.now() - waitedMs).toISOString();
    const { v: _v, bodyEncoding: _e, body: _b, ...meta } = JSON.parse(record.body) as StoredNotification;
    return { ...record, body: encodeStoredNotification({ ...meta, receivedAt }, JSON.stringify({ pix })) };
  };
  const horario = (f: ReturnType<typeof peak>, agoMs: number) => new Date(f.clock.now() - agoMs).toISOString();

  it('callbacks that waited past the bound: their Pix and charges verified by the listings, no single read, each published once', async () => {
    const f = peak();
    const txid = chargeTxid();
    const paying = pixElement(e2e(), { txid, horario: horario(f, 60_000) });
    const staticCode = pixElement(e2e(), { txid: 'LOJA01', horario: horario(f, 59_000) });
    f.provider.holds(paying);
    f.provider.holds(staticCode);
    f.provider.charge(txid, 'cob', [paying]);
    f.provider.created.set(`cob/${txid}`, f.clock.now() - 30 * 60_000);
    await processBatch(
      { Records: [stored(f, 30_000, [paying]), stored(f, 30_000, [staticCode])] },
      contextWith(f.clock),
      f.deps,
    );
    expect(f.provider.calls.filter((c) => !c.includes('?'))).toEqual([]);
    const published = f.published.map((e) => [e.detailType, e.detail.pix.endToEndId, e.detail.pix.charge?.kind]);
    expect(published).toHaveLength(2);
    expect(published).toEqual(
      expect.arrayContaining([
        [T.PIX_RECEIVED, paying.endToEndId, 'cob'],
        [T.PIX_RECEIVED, staticCode.endToEndId, undefined],
      ]),
    );
    // The same Pix again, one by one (a retry, the sweep): already published, nothing twice.
    await processBatch({ Records: [stored(f, 0, [paying], 2)] }, contextWith(f.clock), f.deps);
    expect(f.published).toHaveLength(2);
  });

  it('a Pix the listing does not show is read one by one; a key not ours stays dropped', async () => {
    const f = peak();
    const lagging = pixElement(e2e(), { txid: 'QR1', horario: horario(f, 60_000) });
    f.provider.holds(lagging);
    f.provider.unlisted.add(lagging.endToEndId as string);
    await processBatch({ Records: [stored(f, 30_000, [lagging])] }, contextWith(f.clock), f.deps);
    expect(f.provider.calls.filter((c) => !c.includes('?'))).toEqual([`GET /pix/${lagging.endToEndId as string}`]);
    expect(f.published.map((e) => e.detailType)).toEqual([T.PIX_RECEIVED]);
  });

  it('without mutual TLS and a pin a callback chooses nothing: every Pix read one by one, whatever waited', async () => {
    const f = peak({ authenticated: false });
    const pix = pixElement(e2e(), { txid: 'QR1', horario: horario(f, 60_000) });
    f.provider.holds(pix);
    await processBatch({ Records: [stored(f, 30_000, [pix])] }, contextWith(f.clock), f.deps);
    expect(f.provider.calls).toEqual([`GET /pix/${pix.endToEndId as string}`]);
  });

  it('below the bound, and on a retry, nothing changes: one by one', async () => {
    const f = peak();
    const [fresh, retried] = [1, 2].map(() => pixElement(e2e(), { txid: 'QR1', horario: horario(f, 60_000) }));
    f.provider.holds(fresh);
    f.provider.holds(retried);
    await processBatch({ Records: [stored(f, 9_000, [fresh])] }, contextWith(f.clock), f.deps);
    expect(f.provider.calls).toEqual([`GET /pix/${fresh.endToEndId as string}`]);
    const g = peak();
    g.provider.holds(retried);
    await processBatch({ Records: [stored(g, 30_000, [retried], 2)] }, contextWith(g.clock), g.deps);
    expect(g.provider.calls).toEqual([`GET /pix/${retried.endToEndId as string}`]);
  });

  it('a charge the listing shows concluded with another Pix decides nothing: the charge is read one by one, and the Pix is not confirmed', async () => {
    const f = peak();
    const txid = chargeTxid();
    const pix = pixElement(e2e(), { txid, horario: horario(f, 60_000) });
    const other = pixElement(e2e(), { txid });
    f.provider.holds(pix);
    f.provider.charge(txid, 'cob', [other]);
    const result = await processBatch({ Records: [stored(f, 30_000, [pix])] }, contextWith(f.clock), f.deps);
    expect(f.provider.calls.filter((c) => !c.includes('?'))).toEqual([
      `GET /cob/${txid}`,
      `GET /cobv/${txid}`,
      `GET /cobr/${txid}`,
    ]);
    expect(result.batchItemFailures).toHaveLength(1);
    expect(f.published).toEqual([]);
  });
});
