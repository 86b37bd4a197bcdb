import type { AreaDefinition } from '../types.js';
import type { FixtureStore } from '../../platform/fixture-store.js';
import { sendErrorPage } from './errors.js';
import { catalogItems, type CatalogItem } from './queries.js';
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
  upstream: 'https://archive.org',
  plugin: archiveRoutes,
  catalog,
  forced: {
    statuses: { downloadItemFile: [403, 404, 503] },
    send: (_request, reply, _operationId, status) => sendErrorPage(reply, status),
  },
  clientError: (_request, reply, status) => sendErrorPage(reply, status),
  hint: archiveHint,
};
