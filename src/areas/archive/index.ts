import type { AreaDefinition } from '../types.js';
import type { FixtureStore } from '../../platform/fixture-store.js';
import { sendErrorPage } from './errors.js';
import { catalogItems, type CatalogItem } from './queries.js';
import { archiveRoutes } from './routes.js';

let catalogCache: { store: FixtureStore; generation: number; items: CatalogItem[] } | undefined;

function catalog(store: FixtureStore): { items: CatalogItem[] } {
  if (catalogCache?.store !== store || catalogCache.generation !== store.generation) {
    catalogCache = { store, generation: store.generation, items: catalogItems(store) };
  }
  return { items: catalogCache.items };
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
};
