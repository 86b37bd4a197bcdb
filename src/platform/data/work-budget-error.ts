// What a query that ran out of its work budget rejects with (platform/data/query-pool.ts).

/**
 * The request's time ran out. `started` tells whether its SQL was running (the query itself is too
 * expensive: a client error) or still waiting for a free process (the server is busy: try again).
 */
export class WorkBudgetError extends Error {
  constructor(
    readonly budgetMs: number,
    readonly started: boolean,
    reason?: string,
  ) {
    super(
      reason ??
        (started ? `query ran longer than ${budgetMs} ms` : `no query process became free within ${budgetMs} ms`),
    );
  }
}
