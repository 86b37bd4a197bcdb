// What a query that ran out of its work budget rejects with (platform/data/query-pool.ts).

/**
 * The request's time ran out. `started` tells whether its SQL was running (the query itself is too
 * expensive: a client error) or still waiting for a free process (the server is busy: try again).
 */
export class WorkBudgetError extends Error {
  constructor(
    readonly budgetMs: number,
    readonly started: boolean,
    /** Set when the job was stopped early because this many slow jobs were running already. */
    readonly slowAtOnce?: number,
  ) {
    super(
      slowAtOnce !== undefined
        ? `more than ${slowAtOnce} slow queries at once`
        : started
          ? `query ran longer than ${budgetMs} ms`
          : `no query process became free within ${budgetMs} ms`,
    );
  }

  /** Why a client should retry, in words an area's busy answer can use. */
  get busyReason(): string {
    return this.slowAtOnce !== undefined
      ? `${this.slowAtOnce} slow ${this.slowAtOnce === 1 ? 'query was' : 'queries were'} already running`
      : `no query could start within ${this.budgetMs} ms`;
  }
}

/**
 * `work`, with a WorkBudgetError turned into the area's own error: `tooLong` when the job ran past its
 * budget (the query is too expensive), `busy` when it could not run (the server is; retry).
 */
export async function inAreaTerms<T>(
  work: Promise<T>,
  tooLong: (budgetMs: number) => Error,
  busy: (reason: string) => Error,
): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof WorkBudgetError) throw err.started ? tooLong(err.budgetMs) : busy(err.busyReason);
    throw err;
  }
}
