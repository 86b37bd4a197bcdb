// SQLite's LIKE (no ESCAPE, case_sensitive_like off) over a column's dictionary, in JavaScript: the text
// every distinct value shows to LIKE is made at build time, and each pattern then costs a string search
// instead of formatting and testing every distinct value again. Semantics, from sqlite.org/lang_expr.html#like
// and func.c patternCompare: `%` any run of characters, `_` exactly one character, letters compared without
// case for ASCII only; a NULL operand matches nothing.
import { foldAscii, LINE_STEP, likeLines, type LikeLines } from '../../../fixtures/dkan/like-texts.js';

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

/**
 * Finds the rank whose line holds an offset of the text, and where that line ends (its "\n"), for offsets
 * given in increasing order: from the line found last when it is in the same stretch of LINE_STEP lines,
 * else from the nearest mark, so a pass over the whole text scans each line at most once.
 */
function lineFinder(t: LikeTexts): (at: number) => { rank: number; end: number } {
  const { text, marks } = t;
  let block = -1;
  let rank = 0;
  let start = 0;
  let end = -1;
  return (at) => {
    let lo = 0;
    let hi = marks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (marks[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    if (lo !== block || at < start) {
      block = lo;
      rank = lo * LINE_STEP + 1;
      start = marks[lo]!;
      end = text.indexOf('\n', start);
    }
    while (end < at) {
      rank++;
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    return { rank, end };
  };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const escapeRegExp = (s: string) => s.replace(/[\\^$.*+?()[\]{}|/]/g, (c) => `\\${c}`);

/**
 * The pattern as a regular expression over one line, or null when a backtracking engine could take more
 * than linear time on it. Each run of wildcards becomes one quantifier (`%_%_` is "at least two
 * characters"), so a run costs one step, as in SQLite's patternCompare. A run with `%` followed by more
 * pattern makes the engine retry what follows at every position: with two such runs the tries multiply
 * (`%a%b%` on a long line without `b`), where SQLite stops at the first run that cannot match
 * (SQLITE_NOWILDCARDMATCH). Those patterns are left to SQLite.
 */
function wildcardBody(p: string): string | null {
  const parts = p.match(/[%_]+|[^%_]+/gu) ?? [];
  let retried = 0;
  const body = parts.map((part, i) => {
    if (!/^[%_]/.test(part)) return escapeRegExp(part);
    const singles = part.length - part.replaceAll('_', '').length;
    if (!part.includes('%')) return `[^\\n]{${singles}}`;
    if (i < parts.length - 1) retried++;
    return `[^\\n]{${singles},}`;
  });
  return retried > 1 ? null : body.join('');
}

/**
 * Marks in `member` (indexed by rank) the ranks whose operand is LIKE `pattern`; false when the pattern is
 * one this matcher leaves to SQLite (very long, a NUL, a line break or a lone surrogate in it, or more than
 * one `%` run with pattern after it: see wildcardBody).
 */
export function markLike(t: LikeTexts, pattern: string, member: Uint8Array): boolean {
  // SQLite refuses patterns over SQLITE_LIMIT_LIKE_PATTERN_LENGTH bytes and stops reading at a NUL.
  if (pattern.length > 1000 || /[\0\n\r\u2028\u2029]/.test(pattern) || LONE_SURROGATE.test(pattern)) return false;
  const p = foldAscii(pattern);
  const { distinct } = t;
  const lineAt = lineFinder(t);
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
      const { rank, end } = lineAt(open ? at : at + 1);
      mark(rank);
      from = end;
    }
    return true;
  }
  const body = wildcardBody(p);
  if (body === null) return false;
  const re = new RegExp(`(?<=\\n)${body}(?=\\n)`, 'gu');
  for (let hit = re.exec(t.text); hit !== null; hit = re.exec(t.text)) {
    const { rank, end } = lineAt(hit.index);
    mark(rank);
    re.lastIndex = end + 1;
  }
  return true;
}
