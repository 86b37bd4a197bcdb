// Prepared statements as data: what the query executor runs for an area, on whichever connection holds the store.
import type { FixtureStore } from './fixture-store.js';

export type StepOp = 'get' | 'all' | 'pluckGet' | 'pluckAll' | 'rawAll';

/** One prepared statement to run: positional (array) or named (object) parameters, as better-sqlite3 binds them. */
export interface Step {
  op: StepOp;
  sql: string;
  params: unknown[] | Record<string, unknown>;
}

/** Runs steps in order on the store's connection (statements prepared once per store); one result per step. */
export function runSteps(store: FixtureStore, steps: readonly Step[]): unknown[] {
  return steps.map((s) => {
    const stmt = store.prepare(s.sql);
    const params = s.params as unknown[];
    switch (s.op) {
      case 'get':
        return stmt.pluck(false).raw(false).get(params);
      case 'all':
        return stmt.pluck(false).raw(false).all(params);
      case 'pluckGet':
        return stmt.pluck(true).get(params);
      case 'pluckAll':
        return stmt.pluck(true).all(params);
      case 'rawAll':
        return stmt.raw(true).all(params);
    }
  });
}
