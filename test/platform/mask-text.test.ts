// Secrets in a JSON body the journal cut short: masked as text, as the cut text no longer parses.
import { describe, expect, it } from 'vitest';
import { maskedText } from '../../src/platform/controls/journal-bodies.js';

describe('a cut JSON body', () => {
  it("has its secret keys' values masked, a string cut in the middle included", () => {
    const json = 'application/json';
    expect(maskedText('{"password":"hide-me","limit":1,"filler":[{"i":0},{"i', json, null)).toBe(
      '{"password":"***","limit":1,"filler":[{"i":0},{"i',
    );
    expect(maskedText('{"a":{"api_key" : 12345, "token":"ab\\"cd"}, "x":"y", "secret":"unterm', json, null)).toBe(
      '{"a":{"api_key" : "***", "token":"***"}, "x":"y", "secret":"***"',
    );
    // A secret name as a value is not a key.
    expect(maskedText('["password", "x"', json, null)).toBe('["password", "x"');
  });
});
