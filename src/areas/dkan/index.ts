import type { FixtureStore } from '../../platform/fixture-store.js';
import type { AreaDefinition } from '../types.js';
import { catalogOf } from './datasets.js';
import { phpTimestamp } from './errors.js';
import { dkanRoutes, forcedError, OP_DATASET_INDEX, OP_DISTRIBUTION } from './routes.js';
import { dkanHint } from './hints.js';

export { BENCHMARK_WORKLOAD, benchmarkPath, benchmarkValues, sqlForRequest } from './queries.js';

function catalog(store: FixtureStore): unknown {
  return {
    datasets: catalogOf(store).datasets.map((d) => ({
      id: d.id,
      resources: d.resources.map((r) => ({
        index: r.index,
        distributionId: r.distributionId,
        rows: r.rows,
        columns: r.columns.map((c) => ({ name: c.name, type: c.type })),
      })),
    })),
  };
}

export const dkanArea: AreaDefinition = {
  name: 'dkan',
  letter: 'E',
  title: 'DKAN datastore',
  prefix: '/dkan',
  upstream: 'https://data.medicaid.gov/api/1',
  plugin: dkanRoutes,
  catalog: (store) => catalog(store),
  forced: {
    statuses: { [OP_DATASET_INDEX]: [400, 404], [OP_DISTRIBUTION]: [400, 404] },
    send: (request, reply, operationId, status, { store }) => {
      const err = forcedError(request, operationId, status, store);
      return reply.code(err.statusCode).header('content-type', 'application/json; charset=utf-8').send(err.body);
    },
  },
  clientError: (_request, reply, status, message) => reply.code(status).type('application/json').send({ message, status, timestamp: phpTimestamp() }),
  hint: dkanHint,
};
