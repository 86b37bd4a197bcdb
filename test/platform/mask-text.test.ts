// Secrets in a JSON body the journal cut short: masked as a whole body's are, as the cut text no longer parses.
import { describe, expect, it } from 'vitest';
import { maskedText } from '../../src/platform/controls/journal-bodies.js';

const json = 'application/json';
const cut = (text: string) => maskedText(text, json, null);

describe('a cut JSON body', () => {
  it("has its secret keys' values masked, a value cut in the middle included", () => {
    expect(cut('{"password":"hide-me","limit":1,"filler":[{"i":0},{"i')).toBe(
      '{"password":"***","limit":1,"filler":[{"i":0},{"i',
    );
    expect(cut('{"a":{"api_key" : 12345, "token":"ab\\"cd"}, "x":"y", "secret":"unterm')).toBe(
      '{"a":{"api_key" : "***", "token":"***"}, "x":"y", "secret":"***"',
    );
    // A secret name as a value is not a key.
    expect(cut('["password", "x"')).toBe('["password", "x"');
  });

  it('masks a list or an object under a secret key whole, and keys spelled with escapes', () => {
    expect(cut('{"token":["s1","s2"],"v":{"password":{"deep":"s3"}},"n":[1')).toBe(
      '{"token":"***","v":{"password":"***"},"n":[1',
    );
    expect(cut('{"pass\\u0077ord":"s1","api\\u005fkey":"s2","x":"')).toBe(
      '{"pass\\u0077ord":"***","api\\u005fkey":"***","x":"',
    );
    // A value that looks like the start of a member does not put the scan out of step.
    expect(cut('{"list":["a",": "],"api_key":"s","more":[')).toBe('{"list":["a",": "],"api_key":"***","more":[');
    expect(cut('{"token":["never closed", {"a":')).toBe('{"token":"***"');
  });

  it('reads a text of escaped quotes in one pass', () => {
    const text = `{"k":"${'\\"'.repeat(40_000)}`;
    expect(cut(text)).toBe(text);
    const quotes = `"${'\\"'.repeat(40_000)}`;
    expect(cut(quotes)).toBe(quotes);
  });

  it('masks whole bodies the same way: a key given twice, nesting past any depth, bytes otherwise as sent', () => {
    expect(cut('{"a":{"password":"S"},"a":1}')).toBe('{"a":{"password":"***"},"a":1}');
    const deep = `${'{"x":'.repeat(70)}{"password":"S"}${'}'.repeat(70)}`;
    expect(cut(deep)).toBe(deep.replace('"S"', '"***"'));
    expect(cut('{ "limit" : 1,\n  "token" : "S" }')).toBe('{ "limit" : 1,\n  "token" : "***" }');
  });

  it('masks what only looks like JSON: single quotes, unquoted keys, a comma missing, brackets that do not pair', () => {
    expect(cut(`{'password':'S','a':1}`)).toBe(`{'password':"***",'a':1}`);
    expect(cut('{password:"S", api_key: 12}')).toBe('{password:"***", api_key: "***"}');
    expect(cut('{"a":1 "password":"S"}')).toBe('{"a":1 "password":"***"}');
    expect(cut('{"a":"b""password":"S"}')).toBe('{"a":"b""password":"***"}');
    expect(cut('{"a":[1,2}],"password":"S"}')).toBe('{"a":[1,2}],"password":"***"}');
  });
});
