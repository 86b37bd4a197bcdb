// How one step of a job runs on a prepared statement: shared by the query workers and the in-process path.
import type { Statement } from 'better-sqlite3';

export type StepOp = 'get' | 'all' | 'pluckGet' | 'pluckAll' | 'rawAll';

/** One prepared statement to run: positional (array) or named (object) parameters, as better-sqlite3 binds them. */
export interface Step {
  op: StepOp;
  sql: string;
  params: unknown[] | Record<string, unknown>;
}

export function runStep(stmt: Statement, op: StepOp, params: Step['params']): unknown {
  const p = params as unknown[];
  switch (op) {
    case 'get':
      return stmt.pluck(false).raw(false).get(p);
    case 'all':
      return stmt.pluck(false).raw(false).all(p);
    case 'pluckGet':
      return stmt.pluck(true).get(p);
    case 'pluckAll':
      return stmt.pluck(true).all(p);
    case 'rawAll':
      return stmt.raw(true).all(p);
  }
}
