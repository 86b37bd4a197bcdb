import type { AreaDefinition } from '../types.js';
import type { FixtureStore } from '../../platform/fixture-store.js';
import { sendError } from './errors.js';
import { catalogData } from './queries.js';
import { appcenterRoutes } from './routes.js';

let catalogCache: { generation: number; store: FixtureStore; value: ReturnType<typeof catalogData> } | null = null;

export const appcenterArea: AreaDefinition = {
  name: 'appcenter',
  letter: 'C',
  title: 'App Center API v0.1',
  prefix: '/appcenter',
  upstream: 'https://api.appcenter.ms',
  plugin: appcenterRoutes,
  catalog: (store) => {
    if (catalogCache?.store !== store || catalogCache.generation !== store.generation) {
      catalogCache = { generation: store.generation, store, value: catalogData(store) };
    }
    return catalogCache.value;
  },
  forced: {
    statuses: { releases_list: [400, 401, 404] },
    send: (_request, reply, _operationId, status) => sendError(reply, status),
  },
  clientError: (_request, reply, status, message) => sendError(reply, status, message),
};
