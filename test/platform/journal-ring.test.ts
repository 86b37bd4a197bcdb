// The journal's slots: a record read back is the record written, whatever its size, and a kept snapshot
// does not change when the ring comes round and reuses its slot.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/platform/controls/journal.js';
import { capture } from '../../src/platform/controls/journal-bodies.js';
import { SLOT_BYTES } from '../../src/platform/controls/journal-ring.js';

const answered = (id: number, url: string, headers: Record<string, string | string[]>) => ({
  id,
  method: 'GET',
  area: 'dkan' as const,
  operationId: 'op',
  url,
  headers,
  status: 200,
  started: performance.now(),
  time: 1_700_000_000_000 + id,
  fault: null,
  forced: false,
});

describe('journal slots', () => {
  it('gives back the URL and headers exactly, in the slot and past its size', () => {
    let spilled = 0;
    const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)) });
    fc.assert(
      fc.property(
        // size 'max': fast-check's default size keeps strings short, and no record would reach its spill buffer.
        fc.string({
          unit: fc.integer({ min: 0x21, max: 0xff }).map((c) => String.fromCharCode(c)),
          maxLength: 3000,
          size: 'max',
        }),
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 20 }).map((s) => s.toLowerCase()),
          fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })),
        ),
        (url, headers) => {
          if (Buffer.byteLength(JSON.stringify([url, headers])) > SLOT_BYTES) spilled += 1;
          const journal = new Journal(3);
          journal.add(answered(journal.nextId(), url, headers));
          const [record] = journal.records();
          expect(record?.url).toBe(url);
          // As JSON text: toStrictEqual compares the `constructor` of two objects, and a header named
          // constructor (fast-check makes one) holding a list made two equal records differ.
          expect(JSON.stringify(record?.headers)).toBe(JSON.stringify(headers));
          expect(Object.getPrototypeOf(record?.headers)).toBe(Object.prototype);
        },
      ),
    );
    // Both kinds of record were tried: some fit their slot, some spilled past it.
    expect(spilled).toBeGreaterThan(10);
    expect(spilled).toBeLessThan(95);
  });

  it('gives back a text that ends at the slot edge in a character of 1 to 4 UTF-8 bytes', () => {
    // The slot is written before its text is measured: a character cut at the edge must spill, not shorten.
    for (const last of ['a', 'é', '€', '😀']) {
      for (let bytes = SLOT_BYTES - 8; bytes <= SLOT_BYTES + 8; bytes++) {
        const frame = Buffer.byteLength(JSON.stringify(['', {}])) + Buffer.byteLength(last);
        const url = `${'u'.repeat(bytes - frame)}${last}`;
        expect(Buffer.byteLength(JSON.stringify([url, {}]))).toBe(bytes);
        const journal = new Journal(2);
        journal.add(answered(journal.nextId(), url, {}));
        expect(journal.records()[0]?.url).toBe(url);
      }
    }
  });

  it('keeps a header named __proto__ as a header', () => {
    const journal = new Journal(2);
    const headers = JSON.parse('{"__proto__":"x","host":"a"}') as Record<string, string>;
    journal.add(answered(journal.nextId(), '/', headers));
    const record = journal.records()[0]!;
    expect(Object.keys(record.headers)).toEqual(['__proto__', 'host']);
    expect(Object.getPrototypeOf(record.headers)).toBe(Object.prototype);
  });

  it('a listener keeps what it snapshots while the ring reuses the slot', () => {
    const journal = new Journal(2);
    const kept: { url: string; id: number }[] = [];
    journal.subscribe((added) => {
      const r = added.snapshot();
      kept.push({ url: r.url, id: r.id });
    });
    const long = `/x?${'a'.repeat(SLOT_BYTES * 2)}`;
    for (let i = 0; i < 6; i++) journal.add(answered(journal.nextId(), i % 2 ? long : `/short/${i}`, { host: 'h' }));
    expect(kept.map((k) => k.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(kept.map((k) => k.url)).toEqual(['/short/0', long, '/short/2', long, '/short/4', long]);
    expect(journal.records().map((r) => r.url)).toEqual([long, '/short/4']);
  });

  it('removing records leaves the others as they were, without telling listeners again', () => {
    const journal = new Journal(4);
    let told = 0;
    journal.subscribe(() => {
      told += 1;
    });
    for (let i = 0; i < 4; i++)
      journal.add({ ...answered(journal.nextId(), `/r/${i}`, {}), note: { stubId: `s${i}` } });
    const before = journal.records();
    expect(journal.removeWhere((r) => r.stubId === 's1')).toBe(1);
    expect(journal.records()).toStrictEqual(before.filter((r) => r.stubId !== 's1'));
    expect(told).toBe(4);
  });

  it("a spilled record keeps only its own bytes, not a share of Buffer's pool", async () => {
    // Buffer.from of a text under 4 KB takes a slice of an 8 KB slab shared by every small buffer made
    // meanwhile: a spilled record kept for the next thousand requests would keep that whole slab.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const n = 2000;
    const journal = new Journal(n);
    const cookie = `session=${'c'.repeat(SLOT_BYTES + 500)}`;
    const garbage = 'g'.repeat(3000);
    // Buffers' memory is given back after a collection, by a sweeper of its own: let it run.
    const settle = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await settle();
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < n; i++) {
      // A short-lived buffer between two records, as a request's own small buffers are.
      Buffer.from(`${garbage}${i}`);
      journal.add(answered(journal.nextId(), `/r/${i}`, { cookie: `${cookie}${i}` }));
    }
    await settle();
    const perRecord = (process.memoryUsage().arrayBuffers - before) / n;
    // Its slot's region (1 KB) and its 1.6 KB spill; a slab per record would be 6 KB or more.
    expect(perRecord).toBeLessThan(4 * 1024);
    expect(journal.records()[0]?.headers.cookie).toBe(`${cookie}${n - 1}`);
  });

  it('a slot reuses its overflow buffer: long records, once the ring has come round, allocate nothing', () => {
    const journal = new Journal(100);
    const url = (i: number) => `/dkan/datastore/query/x/0?${'s'.repeat(SLOT_BYTES + (i % 7) * 10)}&i=${i}`;
    for (let i = 0; i < 100; i++) journal.add(answered(journal.nextId(), url(i), { host: 'h' }));
    // Buffers are counted when made and given back only after a collection: none made means no growth.
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 100; i < 1100; i++) journal.add(answered(journal.nextId(), url(i), { host: 'h' }));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThanOrEqual(0);
    expect(journal.records()[0]?.url).toBe(url(1099));
  });

  it("copies an answer's own headers and body bytes; keeps a cache entry's frozen ones by reference", () => {
    const journal = new Journal(2);
    const ownHeaders: Record<string, unknown> = { 'content-type': 'application/json', 'content-length': 7 };
    const ownBody = Buffer.from('{"a":1}');
    journal.add({
      ...answered(journal.nextId(), '/own', {}),
      responseHeaders: ownHeaders,
      responseBody: { bytes: ownBody, size: 7, contentType: 'application/json' },
    });
    // The caller's objects change afterwards (a reused buffer, headers set later): the record does not.
    ownHeaders['content-length'] = 99;
    ownBody.write('XXXXXXX');
    const shared = Object.freeze({ etag: '"1"' });
    const sharedBody = Object.freeze({ bytes: Buffer.from('{}'), size: 2, contentType: 'application/json' });
    journal.add({ ...answered(journal.nextId(), '/cached', {}), responseHeaders: shared, responseBody: sharedBody });
    const [cached, own] = journal.records();
    expect(own?.responseHeaders).toEqual({ 'content-type': 'application/json', 'content-length': '7' });
    expect(own?.responseBody).toEqual({ bytes: Buffer.from('{"a":1}'), size: 7, contentType: 'application/json' });
    expect(cached?.responseHeaders).toBe(shared);
    expect(cached?.responseBody).toBe(sharedBody);
    expect(journal.get(own!.id)?.responseBody).toBe('{"a":1}');
  });

  it("keeps no reference to an answer's own headers or body bytes", async () => {
    // Held by the journal, they lived for the next `capacity` requests: promoted, then garbage in the old
    // generation until its next full collection.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const journal = new Journal(50);
    const refs: WeakRef<object>[] = [];
    // In a function of its own, so that no local of the test's frame still points at the last ones.
    const addOne = (i: number) => {
      const responseHeaders = { 'content-type': 'text/plain', etag: `"${i}"` };
      const bytes = Buffer.alloc(100 + (i % 3) * 1000, 97);
      refs.push(new WeakRef(responseHeaders), new WeakRef(bytes));
      journal.add({
        ...answered(journal.nextId(), `/r/${i}`, { host: 'h' }),
        responseHeaders,
        responseBody: { bytes, size: bytes.length, contentType: 'text/plain' },
      });
    };
    for (let i = 0; i < 20; i++) addOne(i);
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
    const newest = journal.records(1)[0];
    expect(newest?.responseHeaders).toEqual({ 'content-type': 'text/plain', etag: '"19"' });
    expect(newest?.responseBody).toEqual({ bytes: Buffer.alloc(1100, 97), size: 1100, contentType: 'text/plain' });
  });

  it("copies a text body, cut after the readers' bytes at a character's end, and gives it back as text", () => {
    const journal = new Journal(2, null, 16);
    const text = (t: string) => capture(t, 'text/plain', 16, true);
    journal.add({ ...answered(journal.nextId(), '/short', {}), responseBody: text('{"a":"é"}') });
    // 'é' is 2 bytes: 17 bytes kept at most, so 8 of them (16 bytes) and nothing of the ninth.
    journal.add({ ...answered(journal.nextId(), '/long', {}), responseBody: text('é'.repeat(50)) });
    const [long, short] = journal.records();
    expect(short?.responseBody).toEqual({ bytes: '{"a":"é"}', size: 10, contentType: 'text/plain' });
    expect(long?.responseBody).toEqual({ bytes: 'é'.repeat(8), size: 100, contentType: 'text/plain' });
    expect(journal.get(long!.id)?.responseBody).toBe(`${'é'.repeat(8)}…[cut at 16 of 100 bytes]`);
  });

  it('holds no part of a long text answer: only its cut', () => {
    // A cut taken as a slice of the text kept the whole text alive (V8's sliced strings): ten 5 MB answers
    // held about 48 MB for the next `capacity` requests.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const journal = new Journal(20);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 10; i++) {
      // Made by concatenation, as an answer's text is, then flattened by the capture's byte count.
      const body = `${String(i).repeat(5_000_000)}{}`;
      journal.add({
        ...answered(journal.nextId(), `/big/${i}`, {}),
        responseBody: capture(body, 'text/plain', journal.bodyBytes, true),
      });
    }
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(10_000_000);
    expect(journal.records(1)[0]?.responseBody).toEqual({
      bytes: '9'.repeat(4097),
      size: 5_000_002,
      contentType: 'text/plain',
    });
  });

  it('keeps response header values as text, as readers show them (a BigInt does not throw)', () => {
    const journal = new Journal(2);
    const responseHeaders = { 'x-big': 10n, 'x-nan': Number.NaN, 'x-list': [1, 2], 'x-none': undefined };
    journal.add({ ...answered(journal.nextId(), '/r', {}), responseHeaders });
    expect(journal.records(1)[0]?.responseHeaders).toEqual({ 'x-big': '10', 'x-nan': 'NaN', 'x-list': ['1', '2'] });
  });

  it('a slot that held a long record gives back a shorter one, and a short one, exactly', () => {
    const journal = new Journal(1);
    const long = `/a?${'l'.repeat(SLOT_BYTES * 3)}`;
    const shorter = `/b?${'m'.repeat(SLOT_BYTES + 10)}`;
    for (const url of [long, shorter, '/c', long, '/d']) {
      journal.add(answered(journal.nextId(), url, { host: 'h' }));
      expect(journal.records().map((r) => r.url)).toEqual([url]);
    }
  });

  it('a reader of the newest few parses only their slots (the live stream opens on a full journal)', () => {
    const journal = new Journal(1000);
    for (let i = 0; i < 1500; i++) journal.add(answered(journal.nextId(), `/r/${i}`, { host: 'h' }));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(journal.records(3).map((r) => r.url)).toEqual(['/r/1499', '/r/1498', '/r/1497']);
      expect(journal.record(1498)?.url).toBe('/r/1497');
      expect(parse).toHaveBeenCalledTimes(4);
    } finally {
      parse.mockRestore();
    }
    expect(journal.records()).toHaveLength(1000);
  });
});

describe('removing records from a ring that has come round', () => {
  it('keeps the others in order and fills again after them, oldest going first', () => {
    const journal = new Journal(3);
    for (let i = 0; i < 5; i++) journal.add(answered(journal.nextId(), `/r/${i}`, {}));
    expect(journal.removeWhere((r) => r.id === 4)).toBe(1);
    expect(journal.records().map((r) => r.url)).toEqual(['/r/4', '/r/2']);
    for (let i = 5; i < 7; i++) journal.add(answered(journal.nextId(), `/r/${i}`, {}));
    expect(journal.records().map((r) => r.url)).toEqual(['/r/6', '/r/5', '/r/4']);
    expect(journal.size).toBe(3);
  });
});

describe('reading the journal a record at a time', () => {
  it('parses a record only when the reader reaches it, and skips one the ring wrote over meanwhile', () => {
    const journal = new Journal(3);
    for (let i = 0; i < 3; i++) journal.add(answered(journal.nextId(), `/r/${i}`, { host: 'h' }));
    const view = journal.reading((r) => r.id !== 2);
    expect(view.size).toBe(2);
    const it = view[Symbol.iterator]();
    expect(it.next().value?.url).toBe('/r/2');
    // The ring comes round: record 1 (the oldest) is written over before the reader gets to it.
    journal.add(answered(journal.nextId(), '/r/3', { host: 'h' }));
    expect(it.next().done).toBe(true);
    expect(journal.records().map((r) => r.url)).toEqual(['/r/3', '/r/2', '/r/1']);
  });
});
