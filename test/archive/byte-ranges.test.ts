// Range headers as nginx reads them (ngx_http_range_parse in ngx_http_range_filter_module.c), case by case
// from its code: what archive.org's data nodes answer.
import { describe, expect, it } from 'vitest';
import { nginxRanges } from '../../src/areas/archive/byte-ranges.js';

const ranges = (...list: [number, number][]) => ({ kind: 'ranges', ranges: list });
const ignored = { kind: 'ignored' };
const unsatisfiable = { kind: 'unsatisfiable' };

describe('nginxRanges', () => {
  it.each([
    ['bytes=0-99', 1000, ranges([0, 100])],
    ['bytes=900-', 1000, ranges([900, 1000])],
    ['bytes=-100', 1000, ranges([900, 1000])],
    ['bytes=-5000', 1000, ranges([0, 1000])],
    ['bytes=10-5000', 1000, ranges([10, 1000])],
    ['Bytes= 1 - 2 , 5-6 ', 1000, ranges([1, 3], [5, 7])],
    ['bytes=0-0,0-0', 1000, ranges([0, 1], [0, 1])],
    ['bytes=1000-', 1000, unsatisfiable],
    ['bytes=2000-3000', 1000, unsatisfiable],
    ['bytes=2000-3000,1-2', 1000, ranges([1, 3])],
    ['bytes=-0', 1000, unsatisfiable],
    ['bytes=0-', 0, ignored],
    ['bytes=-5', 0, ignored],
    ['bytes=1-', 0, unsatisfiable],
    ['bytes=0-,0-', 1000, ignored],
    ['bytes=', 1000, ignored],
    ['bits=0-1', 1000, ignored],
    ['bytes=a-1', 1000, unsatisfiable],
    ['bytes=1', 1000, unsatisfiable],
    ['bytes=1-2,', 1000, unsatisfiable],
    ['bytes=1-2,,3-4', 1000, unsatisfiable],
    ['bytes=\t1-2', 1000, unsatisfiable],
    ['bytes=-', 1000, unsatisfiable],
    ['bytes=9223372036854775807-', 1000, unsatisfiable],
    ['bytes=9223372036854775808-', 1000, unsatisfiable],
    ['bytes=0-9223372036854775807', 1000, ranges([0, 1000])],
    ['bytes=0-9223372036854775808', 1000, unsatisfiable],
    ['bytes=00000000000000000000000000001-2', 1000, ranges([1, 3])],
  ] as const)('%j of %d bytes', (value, size, outcome) => {
    expect(nginxRanges(value, size)).toEqual(outcome);
  });

  it('reads a long header in one pass', () => {
    expect(nginxRanges(`bytes=${'1-2,'.repeat(2000)}1-2`, 10_000)).toEqual({
      kind: 'ranges',
      ranges: Array.from({ length: 2001 }, () => [1, 3]),
    });
    expect(nginxRanges(`bytes=${'0'.repeat(16_000)}`, 1000)).toEqual(unsatisfiable);
  });
});
