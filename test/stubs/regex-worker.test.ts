// The regular-expression thread's matcher: full matches, texts sent once and asked for again when dropped.
import { describe, expect, it } from 'vitest';
import { RegexMatcher } from '../../src/stubs/regex-worker.js';

describe('RegexMatcher', () => {
  it('matches the whole text, dot included, like WireMock', () => {
    const m = new RegexMatcher(2);
    expect(m.match({ id: 1, source: 'a.c', key: 1, text: 'a\nc' })).toEqual({ id: 1, hit: true });
    expect(m.match({ id: 2, source: 'a', key: 1 })).toEqual({ id: 2, hit: false });
  });

  it('keeps the newest texts and asks for a dropped one again', () => {
    const m = new RegexMatcher(2);
    for (const key of [1, 2, 3]) m.match({ id: key, source: 'x+', key, text: 'xxx' });
    expect(m.match({ id: 4, source: 'x+', key: 1 })).toEqual({ id: 4, hit: false, lost: true });
    expect(m.match({ id: 5, source: 'x+', key: 3 })).toEqual({ id: 5, hit: true });
  });

  it('matches matchesJsonPath matchers on a held text, its JSON read once', () => {
    const m = new RegexMatcher(2);
    const text = JSON.stringify({ a: { a: 'x' }, b: [{ a: 'y' }] });
    expect(m.match({ id: 1, jsonPath: { expression: '$..a', equalTo: 'y' }, key: 1, text })).toEqual({
      id: 1,
      hit: true,
    });
    expect(m.match({ id: 2, jsonPath: { expression: '$..a', equalTo: 'z' }, key: 1 })).toEqual({ id: 2, hit: false });
    expect(m.match({ id: 3, jsonPath: '$.b[0].a', key: 1 })).toEqual({ id: 3, hit: true });
    expect(m.match({ id: 4, jsonPath: { expression: '$..a', matches: 'x|q' }, key: 1 })).toEqual({ id: 4, hit: true });
    expect(m.match({ id: 5, jsonPath: '$.nope', key: 1 })).toEqual({ id: 5, hit: false });
  });
});
