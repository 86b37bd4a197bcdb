// SQLite's LIKE (no ESCAPE, case_sensitive_like off) over a column's dictionary, in JavaScript: the text
// every distinct value shows to LIKE is made at build time, and each pattern then costs a string search
// instead of formatting and testing every distinct value again. Semantics, from sqlite.org/lang_expr.html#like
// and func.c patternCompare: `%` any run of characters, `_` exactly one character, letters compared without
// case for ASCII only; a NULL operand matches nothing.
import { foldAscii, likeLines, type LikeLines } from '../../../fixtures/dkan/like-texts.js';

/** The LIKE operands of one column's dictionary (fixtures/dkan/like-texts.ts) and its NULLs. */
export interface LikeTexts extends LikeLines {
  /** Ranks whose operand is NULL. */
  nulls: Set<number>;
}

/**
 * The texts of a dictionary from SQL giving every rank's operand as one text joined by "\n" and the ranks
 * whose operand is NULL; null when a value could be misread in the joined text (a line break or NUL in it).
 */
export function likeTexts(joined: string, distinct: number, nullRanks: number[]): LikeTexts | null {
  const t = likeLines(joined, distinct);
  return t && { ...t, nulls: new Set(nullRanks) };
}

/** The rank whose line holds offset `at` of the text. */
function rankAt(t: LikeTexts, at: number): number {
  let lo = 1;
  let hi = t.lines.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (t.lines[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, (c) => `\\${c}`);

/**
 * Marks in `member` (indexed by rank) the ranks whose operand is LIKE `pattern`; false when the pattern is
 * one this matcher leaves to SQLite (very long, a NUL, a line break or a lone surrogate in it).
 */
export function markLike(t: LikeTexts, pattern: string, member: Uint8Array): boolean {
  // SQLite refuses patterns over SQLITE_LIMIT_LIKE_PATTERN_LENGTH bytes and stops reading at a NUL.
  if (pattern.length > 1000 || /[\0\n\r\u2028\u2029]/.test(pattern) || LONE_SURROGATE.test(pattern)) return false;
  const p = foldAscii(pattern);
  const distinct = t.lines.length - 2;
  const mark = (rank: number) => {
    if (!t.nulls.has(rank)) member[rank] = 1;
  };
  if (/^%+$/.test(p)) {
    for (let r = 1; r <= distinct; r++) mark(r);
    return true;
  }
  const m = /^(%?)([^%_]+)(%?)$/.exec(p);
  if (m) {
    // One literal, anchored at none, one or both ends: found with indexOf, one line per hit.
    const [, open, literal, close] = m;
    const needle = `${open ? '' : '\n'}${literal}${close ? '' : '\n'}`;
    let from = 0;
    for (;;) {
      const at = t.text.indexOf(needle, from);
      if (at < 0) break;
      const rank = rankAt(t, open ? at : at + 1);
      mark(rank);
      from = t.lines[rank + 1]! - 1;
    }
    return true;
  }
  const body = [...p].map((c) => (c === '%' ? '[^\\n]*' : c === '_' ? '[^\\n]' : escapeRegExp(c))).join('');
  const re = new RegExp(`(?<=\\n)${body}(?=\\n)`, 'gu');
  for (let hit = re.exec(t.text); hit !== null; hit = re.exec(t.text)) {
    const rank = rankAt(t, hit.index);
    mark(rank);
    re.lastIndex = t.lines[rank + 1]!;
  }
  return true;
}
