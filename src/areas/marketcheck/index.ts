import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../types.js';
import { MISSING_KEY_MESSAGE, sendError, sendRateLimited } from './errors.js';
import { placeCatalog } from './queries.js';
import { OPERATION_ID, marketcheckPlugin, rateLimitOf } from './routes.js';
import { marketcheckHint } from './hints.js';

/** Shown in the catalog when no key list is configured (then any non-empty key works). */
export const DEMO_API_KEY = 'mockyard-demo';

function sendForced(request: FastifyRequest, reply: FastifyReply, _operationId: string, status: number): FastifyReply {
  switch (status) {
    case 400:
      return sendError(reply, 400, 'Missing required parameter car_type: use car_type=new or car_type=used');
    case 401:
      return sendError(reply, 401, MISSING_KEY_MESSAGE);
    case 429: {
      const now = Date.now();
      return sendRateLimited(reply, { limit: rateLimitOf(request), remaining: 0, resetAt: (Math.floor(now / 1000) + 1) * 1000, allowed: false }, now);
    }
    default:
      return sendError(reply, status, 'Internal Server Error');
  }
}

export const marketcheckArea: AreaDefinition = {
  name: 'marketcheck',
  letter: 'B',
  title: 'MarketCheck API v2',
  prefix: '/marketcheck',
  upstream: 'https://marketcheck-prod.apigee.net/v2',
  plugin: marketcheckPlugin,
  catalog: (store, config) => ({
    apiKeys: config.marketcheckApiKeys.length > 0 ? [...config.marketcheckApiKeys] : [DEMO_API_KEY],
    ...placeCatalog(store),
  }),
  forced: { statuses: { [OPERATION_ID]: [400, 401, 429] }, send: sendForced },
  clientError: (_request, reply, status, message) => sendError(reply, status, message),
  hint: marketcheckHint,
};
