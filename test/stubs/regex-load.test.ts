import { describe, expect, it, vi } from 'vitest';

// Each test gets its own instance of the module, with RE2 not yet loaded in it.
const fresh = async () => {
  vi.resetModules();
  return import('../../src/stubs/patterns.js');
};

describe('loading RE2 for the first regular expression', () => {
  it('is not done for bodies without a regular expression, however deep they nest', async () => {
    const { re2Loaded, readyForPatterns } = await fresh();
    let deep: unknown = { equalTo: 'x' };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const many = { mappings: Array.from({ length: 200_000 }, () => ({ request: { urlPath: '/a' } })) };
    await readyForPatterns(deep);
    await readyForPatterns(many);
    await readyForPatterns({ request: { url: '/a', headers: { Accept: { contains: 'json' } } } });
    expect(re2Loaded()).toBe(false);
  });

  it('is done, before the handler runs, for a pattern at any depth', async () => {
    const { re2Loaded, readyForPatterns } = await fresh();
    expect(re2Loaded()).toBe(false);
    await readyForPatterns({
      mappings: [{ request: { urlPath: '/a', headers: { 'X-Trace': { and: [{ matches: '[0-9a-f]+' }] } } } }],
    });
    expect(re2Loaded()).toBe(true);
  });
});
