// RE2 (re2-wasm) is loaded when the first regular expression arrives, in turns of the event loop that other
// clients' requests can come between, not as one pause inside the request that brought it.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { mayHoldRegex, re2Loaded, readyForPatterns } from '../../src/stubs/patterns.js';
import { testApp } from '../helpers/app.js';

const requireHere = createRequire(import.meta.url);

/** As in a process that has not loaded RE2 yet: Node forgets the module, and its next use loads it again. */
const forgetRe2 = () => {
  delete requireHere.cache[requireHere.resolve('re2-wasm')];
};

/** Counts turns of the event loop (setImmediate callbacks) until stopped. */
function countTurns(): () => number {
  let turns = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    on = false;
    return turns;
  };
}

describe('loading RE2 for the first regular expression', () => {
  it('is not done for bodies without a regular expression, however deep they nest', async () => {
    forgetRe2();
    let deep: unknown = { equalTo: 'x' };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const many = { mappings: Array.from({ length: 200_000 }, () => ({ request: { urlPath: '/a' } })) };
    await readyForPatterns(deep);
    await readyForPatterns(many);
    await readyForPatterns({ request: { url: '/a', headers: { Accept: { contains: 'json' } } } });
    expect(re2Loaded()).toBe(false);
  });

  it('is done for a pattern at any depth', async () => {
    forgetRe2();
    expect(re2Loaded()).toBe(false);
    await readyForPatterns({
      mappings: [{ request: { urlPath: '/a', headers: { 'X-Trace': { and: [{ matches: '[0-9a-f]+' }] } } } }],
    });
    expect(re2Loaded()).toBe(true);
  });

  it('tells from an admin body as sent whether it may hold one', async () => {
    expect(mayHoldRegex('{"request":{"urlPathPattern" : "/a/.*"}}')).toBe(true);
    expect(mayHoldRegex('{"request":{"headers":{"X":{"doesNotMatch":"b"}}}}')).toBe(true);
    expect(mayHoldRegex('{"request":{"urlPath":"/matches","headers":{"X":{"equalTo":"urlPattern"}}}}')).toBe(false);
  });

  it('happens before the admin handler, with other work let in between', async () => {
    const { app } = await testApp();
    forgetRe2();
    try {
      const post = async (mapping: object) => {
        const turns = countTurns();
        const res = await app.inject({ method: 'POST', url: '/__admin/mappings', payload: mapping });
        return { status: res.statusCode, turns: turns() };
      };
      expect(re2Loaded()).toBe(false);
      const first = await post({ request: { urlPathPattern: '/orders/[0-9]+' }, response: { status: 204 } });
      expect(first.status).toBe(201);
      expect(re2Loaded()).toBe(true);
      // RE2 loaded, the same kind of request is handled in fewer turns: the first one's were the loading's.
      const second = await post({ request: { urlPathPattern: '/items/[a-z]+' }, response: { status: 204 } });
      expect(second.status).toBe(201);
      expect(first.turns).toBeGreaterThanOrEqual(second.turns + 3);
      expect((await app.inject('/orders/42')).statusCode).toBe(204);
      expect((await app.inject('/orders/x')).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});
