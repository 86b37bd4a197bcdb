// A StringDefinitions answer from the query executor: the scan, the count and the rendering all run in a query
// process under the work budget (--query-timeout), and a job over it gets the ATS's own error.
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { QueryPool } from '../../platform/data/query-pool.js';
import { inAreaTerms } from '../../platform/data/work-budget-error.js';
import { searchBusy, searchTooLong } from './errors.js';
import type { DefinitionsJob } from './queries.js';

/** The finished body (definitionsAnswer) in parts, or null for one definition that does not exist. */
export function definitionsBody(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  job: DefinitionsJob,
): Promise<Uint8Array[] | null> {
  return inAreaTerms(pool.runTask(store, 'agco:definitions', job, config.queryTimeout), searchTooLong, searchBusy);
}
