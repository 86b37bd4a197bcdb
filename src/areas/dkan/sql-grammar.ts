// DKAN's bracket SQL (modules/datastore/src/SqlParser/SqlParser.php), as a Chevrotain grammar:
//   [SELECT <*|COUNT(*)|a,b> FROM <id>][WHERE a = "x" AND b = "y"][ORDER BY a,b ASC|DESC][LIMIT n OFFSET m];
// DKAN's state machine is exact: single spaces, upper-case keywords, no space after a comma, double-quoted
// values of a fixed character set, one direction for all ORDER BY columns. Anything else is invalid.
import { createToken, EmbeddedActionsParser, Lexer, type IToken, type TokenType } from 'chevrotain';

export interface SqlStatement {
  table: string;
  /** `*` (every column), `count` (COUNT(*)) or the listed columns. */
  select: '*' | 'count' | string[];
  where: { property: string; value: string }[];
  orderBy: { properties: string[]; desc: boolean } | null;
  limit: { limit: number; offset: number | null } | null;
}

/** SqlParser::COLUMN_OR_TABLE_CHARS. */
const Ident = createToken({ name: 'Ident', pattern: /[A-Za-z0-9_-]+/ });
const keyword = (name: string, pattern: RegExp): TokenType => createToken({ name, pattern, longer_alt: Ident });
const Select = keyword('Select', /SELECT/);
const From = keyword('From', /FROM/);
const Where = keyword('Where', /WHERE/);
const And = keyword('And', /AND/);
const OrderBy = createToken({ name: 'OrderBy', pattern: /ORDER BY/ });
const Asc = keyword('Asc', /ASC/);
const Desc = keyword('Desc', /DESC/);
const Limit = keyword('Limit', /LIMIT/);
const Offset = keyword('Offset', /OFFSET/);
const CountAll = createToken({ name: 'CountAll', pattern: /COUNT\(\*\)/ });
const Star = createToken({ name: 'Star', pattern: /\*/ });
const Comma = createToken({ name: 'Comma', pattern: /,/ });
const Space = createToken({ name: 'Space', pattern: / / });
const Equals = createToken({ name: 'Equals', pattern: /=+/ });
/** getQuotedStringMachine: one or more of these characters between double quotes (no escapes). */
const Quoted = createToken({
  name: 'Quoted',
  pattern: /"[A-Za-z0-9_\- '\\,.;:?!+*/^=(){}[\]<>`@~#$%&|]+"/,
});
const Open = createToken({ name: 'Open', pattern: /\[/ });
const Close = createToken({ name: 'Close', pattern: /]/ });
const Semicolon = createToken({ name: 'Semicolon', pattern: /;/ });

// Order matters: the quoted string before the brackets inside it, keywords before Ident.
const TOKENS = [
  Quoted,
  CountAll,
  OrderBy,
  Select,
  From,
  Where,
  And,
  Asc,
  Desc,
  Limit,
  Offset,
  Ident,
  Star,
  Comma,
  Space,
  Equals,
  Open,
  Close,
  Semicolon,
];

type Clause = 'where' | 'orderBy' | 'limit';

class BracketSqlParser extends EmbeddedActionsParser {
  constructor() {
    super(TOKENS, { maxLookahead: 3 });
    this.performSelfAnalysis();
  }

  /** The clauses after SELECT come in any order (the machine's `anticipation` state), each at most once. */
  statement = this.RULE('statement', (): SqlStatement => {
    this.CONSUME(Open);
    const head = this.SUBRULE(this.selectClause);
    this.CONSUME(Close);
    const seen = new Set<Clause>();
    const out: SqlStatement = { ...head, where: [], orderBy: null, limit: null };
    this.MANY(() => {
      this.CONSUME2(Open);
      this.OR([
        {
          ALT: () => {
            const where = this.SUBRULE(this.whereClause);
            this.ACTION(() => once(seen, 'where', () => (out.where = where)));
          },
        },
        {
          ALT: () => {
            const orderBy = this.SUBRULE(this.orderClause);
            this.ACTION(() => once(seen, 'orderBy', () => (out.orderBy = orderBy)));
          },
        },
        {
          ALT: () => {
            const limit = this.SUBRULE(this.limitClause);
            this.ACTION(() => once(seen, 'limit', () => (out.limit = limit)));
          },
        },
      ]);
      this.CONSUME2(Close);
    });
    this.CONSUME(Semicolon);
    return out;
  });

  selectClause = this.RULE('selectClause', (): Pick<SqlStatement, 'table' | 'select'> => {
    this.CONSUME(Select);
    this.CONSUME(Space);
    const select = this.OR([
      {
        ALT: (): SqlStatement['select'] => {
          this.CONSUME(Star);
          return '*';
        },
      },
      {
        ALT: (): SqlStatement['select'] => {
          this.CONSUME(CountAll);
          return 'count';
        },
      },
      { ALT: (): SqlStatement['select'] => this.SUBRULE(this.identList) },
    ]);
    this.CONSUME2(Space);
    this.CONSUME(From);
    this.CONSUME3(Space);
    const table = this.CONSUME(Ident).image;
    return { select, table };
  });

  identList = this.RULE('identList', (): string[] => {
    const names: string[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: Comma, DEF: () => names.push(this.CONSUME(Ident).image) });
    return names;
  });

  whereClause = this.RULE('whereClause', (): SqlStatement['where'] => {
    this.CONSUME(Where);
    this.CONSUME(Space);
    const conditions = [this.SUBRULE(this.equality)];
    this.MANY(() => {
      this.CONSUME2(Space);
      this.CONSUME(And);
      this.CONSUME3(Space);
      conditions.push(this.SUBRULE2(this.equality));
    });
    return conditions;
  });

  equality = this.RULE('equality', () => {
    const property = this.CONSUME(Ident).image;
    this.CONSUME(Space);
    this.CONSUME(Equals);
    this.CONSUME2(Space);
    const quoted = this.CONSUME(Quoted).image;
    return { property, value: quoted.slice(1, -1) };
  });

  orderClause = this.RULE('orderClause', (): NonNullable<SqlStatement['orderBy']> => {
    this.CONSUME(OrderBy);
    this.CONSUME(Space);
    const properties = this.SUBRULE(this.identList);
    this.CONSUME2(Space);
    const desc = this.OR([
      {
        ALT: () => {
          this.CONSUME(Asc);
          return false;
        },
      },
      {
        ALT: () => {
          this.CONSUME(Desc);
          return true;
        },
      },
    ]);
    return { properties, desc };
  });

  limitClause = this.RULE('limitClause', (): NonNullable<SqlStatement['limit']> => {
    this.CONSUME(Limit);
    this.CONSUME(Space);
    const limitToken = this.CONSUME(Ident);
    let offsetToken: IToken | undefined;
    this.OPTION(() => {
      this.CONSUME2(Space);
      this.CONSUME(Offset);
      this.CONSUME3(Space);
      offsetToken = this.CONSUME2(Ident);
    });
    return this.ACTION(() => ({ limit: number(limitToken), offset: offsetToken ? number(offsetToken) : null }));
  });
}

class RepeatedClause extends Error {}

function once(seen: Set<Clause>, clause: Clause, read: () => void): void {
  if (seen.has(clause)) throw new RepeatedClause(clause);
  seen.add(clause);
  read();
}

class NotANumber extends Error {}

/** getLimitMachine: digits only; the lexer's Ident also takes letters, so they are refused here. */
function number(token: IToken): number {
  if (!/^\d+$/.test(token.image)) throw new NotANumber(token.image);
  return Number(token.image);
}

// This module is loaded on the first SQL query (sql-endpoint.ts imports it then): the lexer and parser's
// self-analysis, and chevrotain itself, cost a start-up that never sees a SQL query nothing.
const lexer = new Lexer(TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: false });
const parser = new BracketSqlParser();

/** The statement, or null where DKAN's SqlParser::validate() is false. */
export function parseBracketSql(text: string): SqlStatement | null {
  const lexed = lexer.tokenize(text);
  if (lexed.errors.length > 0) return null;
  parser.input = lexed.tokens;
  try {
    const statement = parser.statement();
    return parser.errors.length > 0 ? null : statement;
  } catch (err) {
    if (err instanceof RepeatedClause || err instanceof NotANumber) return null;
    throw err;
  }
}
