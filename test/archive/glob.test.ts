// Wildcard terms of archive search (`*`, `?`) are matched without a backtracking regular expression.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../fixtures/lib/prng.js';
import { globMatches } from '../../src/areas/archive/search-query.js';

/** What the matcher must agree with: the pattern as an anchored regular expression. */
const byRegex = (pattern: string, value: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    's',
  ).test(value);

describe('globMatches', () => {
  it('agrees with the anchored regular expression on 20,000 random patterns and values', () => {
    const random = mulberry32(11);
    const pick = (alphabet: string, max: number) =>
      Array.from(
        { length: Math.floor(random() * (max + 1)) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
    for (let i = 0; i < 20_000; i++) {
      const pattern = pick('ab*?.\\', 7);
      const value = pick('ab.\\\n', 9);
      expect(globMatches(pattern, value), `${JSON.stringify(pattern)} on ${JSON.stringify(value)}`).toBe(
        byRegex(pattern, value),
      );
    }
  });

  it('answers a pattern of many wildcards on a long value without backtracking (a regular expression hangs)', () => {
    const value = 'a'.repeat(5_000);
    expect(globMatches(`${'*?'.repeat(40)}*#`, value)).toBe(false);
    expect(globMatches(`${'*?'.repeat(40)}*a`, value)).toBe(true);
    expect(globMatches('**?*?*?*?*#', `${'x'.repeat(3_000)}#`)).toBe(true);
  });
});
