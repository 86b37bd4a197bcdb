import { storeCredentials } from '../../scenarios/credentials.js';
import type { AreaDefinition, ErrorAnswer, ErrorContext } from '../../platform/area.js';
import { JSON_TYPE, MISSING_KEY_MESSAGE, RATE_LIMIT_MESSAGE, rateLimitHeaders } from './errors.js';
import { placeCatalog } from './queries.js';
import { marketcheckExamples } from './examples.js';
import { marketcheckPlugin, rateLimitOf } from './routes.js';
import { marketcheckHint } from './hints.js';

/** Shown in the catalog when no key list is configured (then any non-empty key works). */
export const DEMO_API_KEY = 'mockyard-demo';

const NATURAL: Record<number, string> = {
  400: 'Missing required parameter car_type: use car_type=new or car_type=used',
  401: MISSING_KEY_MESSAGE,
};

/** MarketCheck's API writes {code, message}; its rate-limiting gateway writes {message} with RateLimit-* headers. */
function formatError({ status, message, request }: ErrorContext): ErrorAnswer {
  if (status === 429) {
    const now = Date.now();
    const state = {
      limit: rateLimitOf(request),
      remaining: 0,
      resetAt: (Math.floor(now / 1000) + 1) * 1000,
      allowed: false,
    };
    return {
      contentType: JSON_TYPE,
      body: JSON.stringify({ message: RATE_LIMIT_MESSAGE }),
      headers: rateLimitHeaders(state, now),
    };
  }
  const text =
    message ??
    NATURAL[status] ??
    (status === 404
      ? `Not found: ${request.method} ${request.url.split('?')[0]}. The mocked endpoint is GET /popular/cars.`
      : 'Internal Server Error');
  return { contentType: JSON_TYPE, body: JSON.stringify({ code: status, message: text }) };
}

export const marketcheckArea: AreaDefinition = {
  name: 'marketcheck',
  letter: 'B',
  title: 'MarketCheck API v2',
  prefix: '/marketcheck',
  upstream: 'https://marketcheck-prod.apigee.net/v2',
  plugin: marketcheckPlugin,
  catalog: (store, config) => ({
    apiKeys: [
      ...(storeCredentials(store, 'marketcheck') ??
        (config.marketcheckApiKeys.length > 0 ? config.marketcheckApiKeys : [DEMO_API_KEY])),
    ],
    ...placeCatalog(store),
  }),
  formatError,
  examples: (store, config) => marketcheckExamples(store, config, DEMO_API_KEY),
  hint: marketcheckHint,
};
