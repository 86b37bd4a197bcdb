// Matching stubs on the request path: values are compared, not measured, and bodies are matched a slice at a time.
import { describe, expect, it, vi } from 'vitest';
import { mulberry32 } from '../../fixtures/lib/prng.js';
import { bodyMatchesSliced, distance, parseJson, valueMatches } from '../../src/stubs/pattern-match.js';
import { EVENT_LOOP_WORK, jsonPathWork } from '../../src/stubs/json-path-work.js';
import { parsePattern } from '../../src/stubs/patterns.js';
import { requestDistance, StubRequest } from '../../src/stubs/request.js';
import { StubStore } from '../../src/stubs/store.js';
import { Stubs } from '../../src/stubs/world.js';
import { testApp } from '../helpers/app.js';
import { addMapping } from '../helpers/stubs.js';

describe('valueMatches', () => {
  it('agrees with distance === 0 on random and / or trees of equalTo, contains, absent and case-insensitive matchers', () => {
    const random = mulberry32(5);
    const word = () => ['a', 'A', 'ab', 'b', ''][Math.floor(random() * 5)]!;
    const leaf = (): unknown => {
      const r = random();
      if (r < 0.4) return { equalTo: word(), ...(random() < 0.5 ? { caseInsensitive: true } : {}) };
      if (r < 0.6) return { contains: word() };
      if (r < 0.7) return { doesNotContain: word() };
      return { absent: true };
    };
    const tree = (depth: number): unknown => {
      if (depth === 0 || random() < 0.4) return leaf();
      const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => tree(depth - 1));
      return random() < 0.5 ? { and: parts } : { or: parts };
    };
    for (let i = 0; i < 5_000; i++) {
      const pattern = parsePattern(tree(3), '/request/headers/x');
      const value = random() < 0.15 ? undefined : word() + word();
      expect(valueMatches(pattern, value), JSON.stringify({ pattern, value })).toBe(distance(pattern, value) === 0);
    }
  });
});

describe('matchesJsonPath with a sub-matcher, whole and a slice at a time', () => {
  it('agrees with distance === 0 on random documents, paths and sub-matchers', async () => {
    const random = mulberry32(9);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const value = (depth: number): unknown => {
      const r = random();
      if (depth === 0 || r < 0.3) return pick(['a', 'b', 1, 2, true, null]);
      if (r < 0.6) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth - 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 3) }, () => [pick(['a', 'k']), value(depth - 1)]),
      );
    };
    const slicing = { tick: () => undefined, regex: async () => false, jsonPath: async () => false };
    for (let i = 0; i < 2_000; i++) {
      const text = JSON.stringify({ k: value(3), a: value(2) });
      const sub = pick([
        { equalTo: 'a' },
        { equalTo: '["a","b"]' },
        { equalTo: '1' },
        { contains: 'a' },
        { equalTo: '[1,2]' },
      ]);
      const pattern = parsePattern(
        { matchesJsonPath: { expression: pick(['$..a', '$..*', '$.k', '$..k[0]']), ...sub } },
        '/b',
      );
      const body = { bytes: Buffer.from(text), text, json: () => parseJson(text) };
      const expected = distance(pattern, text) === 0;
      expect(await bodyMatchesSliced(pattern, body, slicing), `${JSON.stringify(pattern)} on ${text}`).toBe(expected);
      // The same match whole, as the regex thread and the admin API's request search make it.
      expect(valueMatches(pattern, text), `${JSON.stringify(pattern)} on ${text}`).toBe(expected);
    }
  });
});

describe('matchesJsonPath with several values found', () => {
  it('matches the list of them as JSON, whole and a slice at a time, as WireMock does', async () => {
    const text = JSON.stringify({ a: 'a', k: { a: 'b' } });
    const body = { bytes: Buffer.from(text), text, json: () => parseJson(text) };
    const slicing = { tick: () => undefined, regex: async () => false, jsonPath: async () => false };
    const list = parsePattern({ matchesJsonPath: { expression: '$..a', equalTo: '["a","b"]' } }, '/b');
    const reversed = parsePattern({ matchesJsonPath: { expression: '$..a', equalTo: '["b","a"]' } }, '/b');
    expect(valueMatches(list, text)).toBe(true);
    expect(await bodyMatchesSliced(list, body, slicing)).toBe(true);
    expect(valueMatches(reversed, text)).toBe(false);
    expect(await bodyMatchesSliced(reversed, body, slicing)).toBe(false);
  });
});

describe('stub matching on the request path', async () => {
  const { app } = await testApp();
  const post = (url: string, payload: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
  /** Adds a stub through WireMock's admin API. */
  const addStub = (mapping: object) => addMapping(app, mapping);
  /** A stub answering `status` to a POST to `urlPath` whose body meets `pattern`. */
  const bodyStub = (urlPath: string, pattern: unknown, status: number) =>
    addStub({ request: { method: 'POST', urlPath, bodyPatterns: [pattern] }, response: { status } });

  it('answers a header rule of thousands of long equalTo parts by comparing them', async () => {
    const long = (c: string) => c.repeat(256);
    const parts = Array.from({ length: 3_000 }, (_, i) => ({ equalTo: long(String.fromCharCode(97 + (i % 26))) }));
    await addStub({
      request: { method: 'GET', urlPath: '/many-parts', headers: { 'x-a': { or: parts } } },
      response: { status: 204 },
    });
    const hit = await app.inject({ url: '/many-parts', headers: { 'x-a': long('c') } });
    expect(hit.statusCode).toBe(204);
    const miss = await app.inject({ url: '/many-parts', headers: { 'x-a': long('0') } });
    expect(miss.statusCode).toBe(404);
  });

  it('matches a JSONPath that finds 150,000 values: a match, or a 404, never a 500', async () => {
    await bodyStub('/many-found', { matchesJsonPath: { expression: '$..*', equalTo: 'needle' } }, 201);
    const numbers = Array.from({ length: 150_000 }, (_, i) => i % 10);
    expect((await post('/many-found', { n: numbers, deep: { deeper: 'needle' } })).statusCode).toBe(201);
    expect((await post('/many-found', { n: numbers })).statusCode).toBe(404);
  });

  it('takes a body nested too deep for JSON.stringify as no match, on the event loop and on the thread, failing no one else', async () => {
    await bodyStub('/too-deep', { matchesJsonPath: { expression: '$', equalTo: 'x' } }, 200);
    await bodyStub('/letters', { matches: '[a-z]+' }, 202);
    const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const send = (url: string, payload: string) =>
      app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
    // Under 64 KiB the matcher runs on the event loop; over it on the regex thread, beside another body's expression.
    // No stub matches: the request goes on to mockyard's own JSON nesting limit (a 400), never a 500.
    expect((await send('/too-deep', nested(5_000))).statusCode).toBe(400);
    const [deep, letters] = await Promise.all([
      send('/too-deep', nested(40_000)),
      send('/letters', 'a'.repeat(900_000)),
    ]);
    expect(deep.statusCode).toBe(400);
    expect(letters.statusCode).toBe(202);
  });

  it('matches a request with a small body a slice at a time, like a large one', async () => {
    await bodyStub('/small-body', { matchesJsonPath: "$..[?(@.k == 'yes')]" }, 201);
    const sliced = vi.spyOn(Stubs.prototype, 'matchSliced');
    try {
      expect((await post('/small-body', [{ k: 'no' }, { k: 'yes' }])).statusCode).toBe(201);
      expect((await post('/small-body', [{ k: 'no' }])).statusCode).toBe(404);
      expect(sliced).toHaveBeenCalledTimes(2);
    } finally {
      sliced.mockRestore();
    }
  });
});

describe('near-miss reports', () => {
  /** The textbook table: what WireMock's EqualToPattern normalises by the longer length. */
  const table = (a: string, b: string): number => {
    let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++)
        cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
    return prev[b.length]!;
  };

  it('measure equalTo by Levenshtein over the longer length, as the table gives it, up to 256 characters', () => {
    const random = mulberry32(11);
    const text = (n: number) =>
      Array.from({ length: n }, () => 'abcé\u{1F600}'[Math.floor(random() * 5)])
        .join('')
        .slice(0, n);
    for (let i = 0; i < 300; i++) {
      const a = text(Math.floor(random() * 120));
      const b =
        random() < 0.3 ? a.slice(0, Math.floor(random() * a.length)) + text(5) : text(Math.floor(random() * 120));
      const expected = a === b ? 0 : table(a, b) / Math.max(a.length, b.length);
      expect(distance(parsePattern({ equalTo: a }, '/x'), b), JSON.stringify([a, b])).toBeCloseTo(expected, 12);
    }
    // Longer values are only equal or not.
    expect(distance(parsePattern({ equalTo: 'a'.repeat(300) }, '/x'), `${'a'.repeat(299)}b`)).toBe(1);
  });

  it('scan the mappings with the event loop let in as the slicer asks, over the mappings as they were at the start', async () => {
    const store = new StubStore();
    store.addAll(
      Array.from({ length: 20 }, (_, i) => ({
        request: { method: 'GET', urlPath: `/n/${i}`, headers: { 'x-a': { equalTo: `value-${i}` } } },
        response: { status: 200 },
      })),
    );
    const removed = store.list().find((s) => (s.json.request as { urlPath: string }).urlPath === '/n/3')!;
    let ticks = 0;
    const tick = () => {
      ticks++;
      // Every fifth step yields; at the first yield the mapping the request matches is removed.
      if (ticks % 5 !== 0) return undefined;
      if (ticks === 5) store.remove(removed.id);
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    const slicing = { tick, regex: async () => false, jsonPath: async () => false };
    const req = new StubRequest('GET', '/n/3', '', { 'x-a': 'value-3' }, undefined);
    const near = await store.nearMisses(req, slicing);
    expect(ticks).toBe(20);
    expect(near).toHaveLength(3);
    expect(near[0]!.stub).toBe(removed);
    expect(near[0]!.distance).toBe(0);
    expect(near.map((m) => m.distance)).toEqual([...near.map((m) => m.distance)].sort((a, b) => a - b));
    for (const m of near.slice(1)) {
      expect(m.distance).toBeCloseTo(requestDistance(m.stub.request, req), 12);
      expect(m.misses).toEqual(['url', 'header x-a']);
    }
  });

  it('measure a large body on the thread, between turns of the event loop, as the request path matches it', async () => {
    const store = new StubStore();
    store.addAll([
      {
        request: {
          method: 'POST',
          urlPath: '/b',
          bodyPatterns: [{ or: [{ matches: '.*zzz.*' }, { matchesJsonPath: '$..x' }] }],
        },
        response: { status: 200 },
      },
    ]);
    const seen: string[] = [];
    const slicing = {
      tick: () => undefined,
      regex: async (source: string) => {
        seen.push(`regex ${source}`);
        return false;
      },
      jsonPath: async (source: unknown) => {
        seen.push(`jsonPath ${JSON.stringify(source)}`);
        return true;
      },
    };
    const body = Buffer.from(JSON.stringify({ a: 'y'.repeat(100 * 1024), x: 1 }));
    const near = await store.nearMisses(new StubRequest('POST', '/b', '', {}, body), slicing);
    expect(seen).toEqual(['regex .*zzz.*', 'jsonPath "$..x"']);
    expect(near[0]!.distance).toBe(0);
  });
});

describe('JSONPath work', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

  it('is values for plain steps, and values to the power of the descents times depth with `..`', () => {
    const doc = JSON.parse('{"a":[1,2,{"b":3}]}');
    // The object, the list, three items, and b's value: 6 values, 4 deep.
    expect(jsonPathWork('$.a[*]', doc)).toBe(6);
    expect(jsonPathWork('$..b', doc)).toBe(6 * 4);
    expect(jsonPathWork('$..*..b', doc)).toBe(36 * 4);
    expect(jsonPathWork('$..b', JSON.parse(nested(5000)))).toBe(5001 * 5001);
    // Unions take a value once per member: `$[*,*,*]` three times, a second such step nine.
    expect(jsonPathWork('$.a[*,*,*]', doc)).toBe(6 * 3);
    expect(jsonPathWork('$.a[0,1][*,*,*]', doc)).toBe(6 * 6);
  });

  it('finds nothing past the event loop limit: a multiplying expression over a short deep value', () => {
    // Run, it would match (every value found contains a 0); past the limit it finds nothing.
    const pattern = parsePattern({ matchesJsonPath: { expression: '$..*..*..*..*', contains: '0' } }, '/x');
    const header = nested(40);
    expect(jsonPathWork('$..*..*..*..*', JSON.parse(header))).toBeGreaterThan(EVENT_LOOP_WORK);
    expect(valueMatches(pattern, header)).toBe(false);
    expect(distance(pattern, header)).toBe(1);
    // Within the limit the same expression still runs.
    const shallow = parsePattern({ matchesJsonPath: { expression: '$..*..*', contains: '0' } }, '/x');
    expect(valueMatches(shallow, '{"a":{"b":0}}')).toBe(true);
  });

  it('sends a body past the event loop limit to the thread, however short the body', async () => {
    const pattern = parsePattern({ matchesJsonPath: '$..*..*' }, '/x');
    const text = nested(1000);
    const body = { bytes: Buffer.from(text), text, json: () => parseJson(text) };
    const sent: string[] = [];
    const slicing = {
      tick: () => undefined,
      regex: async () => false,
      jsonPath: async (source: unknown, t: string) => {
        sent.push(`${JSON.stringify(source)} ${t.length}`);
        return false;
      },
    };
    expect(await bodyMatchesSliced(pattern, body, slicing)).toBe(false);
    expect(sent).toEqual([`"$..*..*" ${text.length}`]);
    // A usual one stays on the event loop.
    const usual = parsePattern({ matchesJsonPath: '$..b' }, '/x');
    const small = '{"a":[{"b":1}]}';
    expect(
      await bodyMatchesSliced(usual, { bytes: Buffer.from(small), text: small, json: () => parseJson(small) }, slicing),
    ).toBe(true);
    expect(sent).toHaveLength(1);
  });
});
