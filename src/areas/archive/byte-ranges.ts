// A Range header read as nginx reads it (ngx_http_range_header_filter and ngx_http_range_parse in
// src/http/modules/ngx_http_range_filter_module.c): archive.org's data nodes serve item files with nginx.

/** What nginx makes of a Range: ignored (the whole file, 200), not satisfiable (416), or byte ranges (206). */
export type RangeOutcome =
  | { kind: 'ignored' }
  | { kind: 'unsatisfiable' }
  /** Each range as [first byte, last byte + 1), within the file. */
  | { kind: 'ranges'; ranges: [start: number, end: number][] };

const IGNORED: RangeOutcome = { kind: 'ignored' };
const UNSATISFIABLE: RangeOutcome = { kind: 'unsatisfiable' };

/** NGX_MAX_OFF_T_VALUE (2^63 - 1): nginx answers 416 to a larger number rather than let it wrap. */
const MAX_OFF_T = '9223372036854775807';

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Past MAX_OFF_T, by its digits (no leading zeros counted). */
function pastOffT(digits: string): boolean {
  let i = 0;
  while (i < digits.length - 1 && digits[i] === '0') i++;
  const n = digits.length - i;
  return n > MAX_OFF_T.length || (n === MAX_OFF_T.length && digits.slice(i) > MAX_OFF_T);
}

/**
 * nginx's reading of `value` for a file of `size` bytes: a value that does not start with `bytes=` (any
 * case) or has nothing after it is ignored; after it, anything but `first-last`, `first-` or `-suffix` of
 * digits with spaces around them, comma-separated, is not satisfiable, as is a number past 2^63 - 1 and a
 * list whose every range starts past the end. Ranges whose bytes add up to more than the file are ignored
 * (the whole file is cheaper), as is a range from byte 0 that holds nothing (an empty file).
 */
export function nginxRanges(value: string, size: number): RangeOutcome {
  if (value.length < 7 || value.slice(0, 6).toLowerCase() !== 'bytes=') return IGNORED;
  let p = 6;
  const spaces = () => {
    while (value[p] === ' ') p++;
  };
  /** The digits at p, or null past MAX_OFF_T; values past 2^53 only ever compare with `size`. */
  const number = (): number | null => {
    const from = p;
    while (isDigit(value[p])) p++;
    const digits = value.slice(from, p);
    return pastOffT(digits) ? null : Number(digits);
  };
  const ranges: [number, number][] = [];
  let total = 0;
  for (;;) {
    let start = 0;
    let end: number;
    spaces();
    let open = false;
    let suffix = false;
    if (value[p] !== '-') {
      if (!isDigit(value[p])) return UNSATISFIABLE;
      const first = number();
      if (first === null) return UNSATISFIABLE;
      start = first;
      spaces();
      if (value[p++] !== '-') return UNSATISFIABLE;
      spaces();
      open = value[p] === ',' || p >= value.length;
    } else {
      suffix = true;
      p++;
    }
    if (open) {
      end = size;
    } else {
      if (!isDigit(value[p])) return UNSATISFIABLE;
      const last = number();
      if (last === null) return UNSATISFIABLE;
      spaces();
      if (value[p] !== ',' && p < value.length) return UNSATISFIABLE;
      let lastByte = last;
      if (suffix) {
        start = last < size ? size - last : 0;
        lastByte = size - 1;
      }
      end = lastByte >= size ? size : lastByte + 1;
    }
    if (start < end) {
      ranges.push([start, end]);
      total += end - start;
    } else if (start === 0) {
      return IGNORED;
    }
    if (value[p++] !== ',') break;
  }
  if (ranges.length === 0) return UNSATISFIABLE;
  if (total > size) return IGNORED;
  return { kind: 'ranges', ranges };
}
