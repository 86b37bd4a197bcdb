// re2-wasm's fixed 16 MiB heap: expressions are freed, and a module that filled up is loaded afresh, so no
// number of patterns compiled over a server's life stops regular expressions from working.
import { describe, expect, it } from 'vitest';
import { SafeRegex } from '../../src/stubs/patterns.js';
import { Re2Expression, loadRe2 } from '../../src/stubs/re2-heap.js';

describe("re2-wasm's heap", () => {
  it('keeps compiling and matching after more expressions than its heap holds at once', () => {
    const first = loadRe2();
    const kept = new SafeRegex('/orders/[0-9]+', '/urlPattern');
    // About 10,000 of these fill the heap; nothing frees them here (no collection runs in between).
    const many: Re2Expression[] = [];
    for (let i = 0; i < 12_000; i++) many.push(new Re2Expression(`^(?:/orders/[0-9]+/${i})$`, 'su'));
    expect(loadRe2()).not.toBe(first);
    const after = new SafeRegex('/x/.*', '/urlPattern');
    expect(after.test('/x/y')).toBe(true);
    // Compiled before the heap filled: compiled again where it is next used.
    expect(kept.test('/orders/12')).toBe(true);
    expect(kept.test('/orders/x')).toBe(false);
    expect(many[0]!.test('/orders/1/0')).toBe(true);
    expect(many.at(-1)!.test('/orders/1/11999')).toBe(true);
  });

  it('frees an expression at once when asked', () => {
    const Re2 = loadRe2();
    for (let i = 0; i < 12_000; i++) new Re2Expression(`^(?:/free/[0-9]+/${i})$`, 'su').free();
    expect(loadRe2()).toBe(Re2);
  });

  it('still refuses what RE2 cannot run', () => {
    expect(() => new SafeRegex('(?<=a)b', '/urlPattern')).toThrow(/RE2/);
  });
});

describe('regular expressions the mappings hold', () => {
  it('are limited in all, counted at any depth, and given back when their mappings go', async () => {
    const { StubStore } = await import('../../src/stubs/store.js');
    const store = new StubStore(100, 10);
    const mapping = (id: string, n: number) => ({
      id,
      request: {
        urlPattern: '/a/.*',
        headers: { 'X-A': { or: Array.from({ length: n }, (_, i) => ({ matches: `x${i}` })) } },
      },
      response: { status: 200 },
    });
    const a = '00000000-0000-4000-8000-000000000001';
    const b = '00000000-0000-4000-8000-000000000002';
    store.add(mapping(a, 4));
    expect(() => store.add(mapping(b, 5))).toThrow(/at most 10 regular expressions in all; these would make 11/);
    // Replacing a mapping counts only the new one's.
    store.add(mapping(a, 9));
    expect(store.remove(a)).toBe(true);
    store.add(mapping(b, 9));
    expect(() => store.addAll([mapping(a, 1)])).toThrow(/409|regular expressions/);
    store.clear();
    store.addAll([mapping(a, 4), mapping(b, 4)]);
  });
});

describe('one mapping', () => {
  it('may hold at most 1,000 regular expressions, refused before any is compiled', async () => {
    const { parseMapping } = await import('../../src/stubs/mapping.js');
    const holding = (n: number) => ({
      request: { headers: { 'X-A': { or: Array.from({ length: n }, (_, i) => ({ matches: `x${i}` })) } } },
      response: { status: 200 },
    });
    expect(parseMapping(holding(1000), 0).request.regexes).toBe(1000);
    const Re2 = loadRe2();
    expect(() => parseMapping(holding(20_000), 0)).toThrow(/at most 1000 regular expressions/);
    expect(loadRe2()).toBe(Re2);
  });

  it('may hold at most 65,536 characters of regular expressions, and long ones weigh more in the store', async () => {
    const { parseMapping } = await import('../../src/stubs/mapping.js');
    const { StubStore } = await import('../../src/stubs/store.js');
    const long = (n: number, i = 0) => ({
      request: {
        headers: { 'X-A': { or: Array.from({ length: n }, (_, k) => ({ matches: `${'a'.repeat(3990)}${i}-${k}` })) } },
      },
      response: { status: 200 },
    });
    expect(() => parseMapping(long(17), 0)).toThrow(/at most 65536 characters/);
    // 4,000 characters weigh 16 (one and one per 256).
    expect(parseMapping(long(16), 0).request.regexes).toBe(16 * 16);
    const store = new StubStore(100, 600);
    store.add(long(16, 1));
    store.add(long(16, 2));
    expect(() => store.add(long(16, 3))).toThrow(/at most 600 regular expressions in all; these would make 768/);
  });

  it('bounds the patterns of find-by-metadata and remove-by-metadata as a mapping is bounded', async () => {
    const { testApp } = await import('../helpers/app.js');
    const { app } = await testApp();
    const payload = { or: Array.from({ length: 2000 }, (_, i) => ({ matches: String(i) })) };
    for (const url of ['/__admin/mappings/find-by-metadata', '/__admin/mappings/remove-by-metadata']) {
      const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
      expect(res.statusCode, url).toBe(422);
      expect(res.body).toContain('at most 1000 regular expressions');
    }
  });
});

describe("a pattern's compile time", () => {
  it('is estimated from its Unicode classes and counted repetitions, and refused past 60 ms a mapping', async () => {
    const { compileCost } = await import('../../src/stubs/patterns.js');
    const { parseMapping } = await import('../../src/stubs/mapping.js');
    expect(compileCost('/orders/[0-9]+')).toBeLessThan(1);
    expect(compileCost('a{1000}')).toBeLessThan(10);
    expect(compileCost('\\pL')).toBe(20);
    expect(compileCost('[\\pL\\pN_]+')).toBeGreaterThanOrEqual(40);
    expect(compileCost('\\p{Greek}{10}')).toBeGreaterThanOrEqual(200);
    expect(compileCost('(\\pL{10}){10}')).toBeGreaterThanOrEqual(2000);
    expect(compileCost('(?:x|\\pL){3,5}')).toBeGreaterThanOrEqual(100);
    // Atoms that match most of Unicode: `.{1000}` compiled in 55 ms.
    expect(compileCost('.{1000}')).toBeGreaterThanOrEqual(50);
    expect(compileCost('[^a]{1000}')).toBeGreaterThanOrEqual(50);
    // Classes past ASCII however spelled, and case folding (28-85 ms for 1,000 here).
    for (const wide of [
      '[[:^alpha:]]{1000}',
      '[\\x{80}-\\x{10FFFF}]{1000}',
      '[\\W\\S]{1000}',
      '[é-ü]{1000}',
      '(?i)k{1000}',
    ])
      expect(compileCost(wide), wide).toBeGreaterThanOrEqual(50);
    expect(compileCost('(?:[[:^alpha:]]{1000}|[[:^alpha:]]{999}|[[:^alpha:]]{998})')).toBeGreaterThan(60);
    expect(compileCost('[a-z0-9_-]{1000}')).toBeLessThan(5);
    const mapping = (urlPattern: string) => ({ request: { urlPattern }, response: { status: 200 } });
    expect(parseMapping(mapping('/names/\\pL+'), 0).request.regexes).toBe(1);
    expect(() => parseMapping(mapping('\\pL{100}'), 0)).toThrow(/would take about 2000 ms to compile/);
  });
});
