// archive.org's Lucene-like query language (https://archive.org/advancedsearch.php, "Advanced search"):
// field:value, "phrases", wildcards * and ?, [a TO b] and {a TO b} ranges, AND / OR / NOT, + and -, parentheses.
// Parsed into a small tree and matched against one item's search document; nothing here reaches SQL.

export type Value = string | number | (string | number)[];
export type SearchDoc = Record<string, Value>;

type Node =
  | { kind: 'all' }
  | { kind: 'term'; field: string | null; text: string; phrase: boolean }
  | { kind: 'range'; field: string; low: string; high: string; lowIn: boolean; highIn: boolean }
  | { kind: 'and' | 'or'; items: Node[] }
  | { kind: 'not'; item: Node };

export class QuerySyntaxError extends Error {}

const MAX_LENGTH = 4096;
const MAX_DEPTH = 32;
// Fields a bare word is looked for in (archive.org's default "text" field covers these).
const DEFAULT_FIELDS = ['identifier', 'title', 'creator', 'description', 'subject', 'collection'];

function tokenize(q: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      tokens.push(c);
      i++;
      continue;
    }
    let j = i;
    let token = '';
    while (
      j < q.length &&
      !/\s/.test(q[j]!) &&
      q[j] !== ')' &&
      !(q[j] === '(' && token !== '' && !token.endsWith(':'))
    ) {
      const ch = q[j]!;
      if (ch === '"') {
        const end = q.indexOf('"', j + 1);
        if (end < 0) throw new QuerySyntaxError('Unbalanced quotation marks in the query');
        token += q.slice(j, end + 1);
        j = end + 1;
      } else if (ch === '[' || ch === '{') {
        const end = q.slice(j).search(/[\]}]/);
        if (end < 0) throw new QuerySyntaxError('Unclosed range in the query');
        token += q.slice(j, j + end + 1);
        j += end + 1;
      } else if (ch === '(' && token.endsWith(':')) {
        break;
      } else if (ch === '\\' && j + 1 < q.length) {
        token += q.slice(j, j + 2);
        j += 2;
      } else {
        token += ch;
        j++;
      }
    }
    tokens.push(token);
    i = j;
  }
  return tokens;
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: string[]) {}

  parse(): Node {
    if (this.tokens.length === 0) throw new QuerySyntaxError('No query specified');
    const node = this.or(0, null);
    if (this.at < this.tokens.length) throw new QuerySyntaxError(`Unexpected "${this.tokens[this.at]}" in the query`);
    return node;
  }

  private or(depth: number, field: string | null): Node {
    const items = [this.and(depth, field)];
    while (this.peek() === 'OR' || this.peek() === '||') {
      this.at++;
      items.push(this.and(depth, field));
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private and(depth: number, field: string | null): Node {
    const items: Node[] = [];
    // Juxtaposed clauses are AND-ed, as archive.org's search does.
    while (this.at < this.tokens.length && this.peek() !== ')' && this.peek() !== 'OR' && this.peek() !== '||') {
      if (this.peek() === 'AND' || this.peek() === '&&') {
        this.at++;
        continue;
      }
      items.push(this.unary(depth, field));
    }
    if (items.length === 0) throw new QuerySyntaxError('An operator is missing a clause in the query');
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private unary(depth: number, field: string | null): Node {
    if (depth > MAX_DEPTH) throw new QuerySyntaxError('The query is nested too deeply');
    const token = this.tokens[this.at]!;
    if (token === 'NOT' || token === '!') {
      this.at++;
      return { kind: 'not', item: this.unary(depth + 1, field) };
    }
    if (token.length > 1 && (token.startsWith('-') || token.startsWith('+'))) {
      this.tokens[this.at] = token.slice(1);
      const item = this.unary(depth + 1, field);
      return token.startsWith('-') ? { kind: 'not', item } : item;
    }
    if (token === '(') {
      this.at++;
      const inner = this.or(depth + 1, field);
      if (this.tokens[this.at++] !== ')') throw new QuerySyntaxError('Unbalanced parentheses in the query');
      return inner;
    }
    this.at++;
    return this.clause(token, depth, field);
  }

  private clause(token: string, depth: number, field: string | null): Node {
    if (token === '*:*' || token === '*') return { kind: 'all' };
    const colon = /^([A-Za-z_][\w.-]*):(.*)$/s.exec(token);
    if (colon) {
      const name = colon[1]!.toLowerCase();
      const rest = colon[2]!;
      if (rest === '') {
        if (this.peek() !== '(') throw new QuerySyntaxError(`Field ${name} has no value in the query`);
        this.at++;
        const inner = this.or(depth + 1, name);
        if (this.tokens[this.at++] !== ')') throw new QuerySyntaxError('Unbalanced parentheses in the query');
        return inner;
      }
      return this.value(rest, name);
    }
    return this.value(token, field);
  }

  private value(raw: string, field: string | null): Node {
    const range = /^([[{])\s*(\S+)\s+TO\s+(\S+)\s*([\]}])$/.exec(raw);
    if (range) {
      if (!field) throw new QuerySyntaxError('A range needs a field, e.g. year:[2000 TO 2010]');
      return {
        kind: 'range',
        field,
        low: range[2]!,
        high: range[3]!,
        lowIn: range[1] === '[',
        highIn: range[4] === ']',
      };
    }
    if (raw.startsWith('[') || raw.startsWith('{')) throw new QuerySyntaxError(`Malformed range ${raw}`);
    const phrase = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
    const text = (phrase ? raw.slice(1, -1) : raw).replace(/\\(.)/g, '$1');
    return { kind: 'term', field, text: text.toLowerCase(), phrase };
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }
}

export function parseQuery(q: string): Node {
  if (q.length > MAX_LENGTH) throw new QuerySyntaxError(`The query is longer than ${MAX_LENGTH} characters`);
  return new Parser(tokenize(q)).parse();
}

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * Whether `value` matches the wildcard `pattern` whole: `*` any run of characters (none included), `?` any one
 * (a UTF-16 unit, as Lucene's WildcardQuery reads a term). In one pass that goes back only to the last `*`, so
 * at most pattern length x value length steps: a regular expression of the same pattern (`^.*.*..*.#$`)
 * backtracks exponentially in the number of wildcards, and a few characters of query froze the server.
 */
export function globMatches(pattern: string, value: string): boolean {
  let p = 0;
  let v = 0;
  // The last `*` seen and where in the value its run now ends.
  let star = -1;
  let resume = 0;
  while (v < value.length) {
    const c = pattern.charCodeAt(p);
    if (p < pattern.length && c !== STAR && (c === ANY || c === value.charCodeAt(v))) {
      p++;
      v++;
    } else if (p < pattern.length && c === STAR) {
      star = p++;
      resume = v;
    } else if (star >= 0) {
      p = star + 1;
      v = ++resume;
    } else return false;
  }
  while (p < pattern.length && pattern.charCodeAt(p) === STAR) p++;
  return p === pattern.length;
}

const STAR = 42; // '*'
const ANY = 63; // '?'

function valuesOf(doc: SearchDoc, field: string | null): string[] {
  const fields = field ? [field] : DEFAULT_FIELDS;
  return fields.flatMap((f) => {
    const v = doc[f];
    if (v === undefined) return [];
    return (Array.isArray(v) ? v : [v]).map((x) => String(x).toLowerCase());
  });
}

function termMatches(value: string, node: { text: string; phrase: boolean }): boolean {
  if (node.phrase) {
    const wanted = words(node.text).join(' ');
    return value === node.text || ` ${words(value).join(' ')} `.includes(` ${wanted} `);
  }
  if (/[*?]/.test(node.text))
    return globMatches(node.text, value) || words(value).some((w) => globMatches(node.text, w));
  if (value === node.text) return true;
  const wanted = words(node.text);
  const have = words(value);
  // A term that splits into several words (e.g. an identifier with hyphens) must appear as that sequence.
  return wanted.length > 0 && ` ${have.join(' ')} `.includes(` ${wanted.join(' ')} `);
}

function compare(a: string, b: string): number {
  const [x, y] = [Number(a), Number(b)];
  if (a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

function inRange(value: string, n: Extract<Node, { kind: 'range' }>): boolean {
  const low = n.low === '*' ? null : n.low.toLowerCase();
  const high = n.high === '*' ? null : n.high.toLowerCase();
  if (low !== null) {
    const c = compare(value, low);
    if (c < 0 || (c === 0 && !n.lowIn)) return false;
  }
  if (high !== null) {
    // A date bound like 2010 covers all of 2010 when the value is a longer date ("2010-05-01").
    const cut = /^\d{4}(-\d\d){0,2}$/.test(high) && /^\d{4}-/.test(value) ? value.slice(0, high.length) : value;
    const c = compare(cut, high);
    if (c > 0 || (c === 0 && !n.highIn)) return false;
  }
  return true;
}

export function matches(node: Node, doc: SearchDoc): boolean {
  switch (node.kind) {
    case 'all':
      return true;
    case 'and':
      return node.items.every((n) => (n.kind === 'not' ? !matches(n.item, doc) : matches(n, doc)));
    case 'or':
      return node.items.some((n) => matches(n, doc));
    case 'not':
      return !matches(node.item, doc);
    case 'term':
      if (node.text === '*' && node.field) return doc[node.field] !== undefined;
      return valuesOf(doc, node.field).some((v) => termMatches(v, node));
    case 'range':
      return valuesOf(doc, node.field).some((v) => inRange(v, node));
  }
}
