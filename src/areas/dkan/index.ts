import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { type AreaDefinition, Upstream } from '../../platform/area.js';
import { catalogOf } from './datasets.js';
import { dkanRoutes, formatDkanError } from './routes.js';
import { dkanHint } from './hints.js';
import { dkanDocs, dkanExamples } from './examples.js';

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
  upstream: new Upstream('https://data.medicaid.gov/api/1'),
  plugin: dkanRoutes,
  catalog: (store) => catalog(store),
  examples: dkanExamples,
  docs: dkanDocs,
  formatError: formatDkanError,
  // GET answers depend on the URL alone (POST bodies are never kept); --dkan-no-cache keeps DKAN out.
  answerCache: (config) => (config.dkanNoCache ? null : { vary: [] }),
  hint: dkanHint,
};
