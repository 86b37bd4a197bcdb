import type { AreaDefinition } from '../types.js';
import { sendError } from './errors.js';
import { catalogData } from './queries.js';
import { appcenterRoutes } from './routes.js';
import { appcenterHint } from './hints.js';

export const appcenterArea: AreaDefinition = {
  name: 'appcenter',
  letter: 'C',
  title: 'App Center API v0.1',
  prefix: '/appcenter',
  upstream: 'https://api.appcenter.ms',
  plugin: appcenterRoutes,
  catalog: catalogData,
  forced: {
    statuses: { releases_list: [400, 401, 404] },
    send: (_request, reply, _operationId, status) => sendError(reply, status),
  },
  clientError: (_request, reply, status, message) => sendError(reply, status, message),
  hint: appcenterHint,
};
