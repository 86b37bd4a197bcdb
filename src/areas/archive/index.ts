import { type AreaDefinition, Upstream } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { formatArchiveError } from './errors.js';
import { catalogItems, type CatalogItem } from './queries.js';
import { archiveDocs, archiveExamples } from './examples.js';
import { archiveRoutes } from './routes.js';
import { archiveHint } from './hints.js';

function catalog(store: FixtureStore): { items: CatalogItem[] } {
  return { items: catalogItems(store) };
}

export const archiveArea: AreaDefinition = {
  name: 'archive',
  letter: 'A',
  title: 'Internet Archive',
  prefix: '/archive',
  upstream: new Upstream('https://archive.org'),
  plugin: archiveRoutes,
  catalog,
  examples: archiveExamples,
  docs: archiveDocs,
  formatError: formatArchiveError,
  // Metadata answers depend on the URL alone; file answers are streamed and never kept.
  answerCache: () => ({ vary: ['range', 'if-range', 'if-none-match', 'if-modified-since'] }),
  hint: archiveHint,
};
