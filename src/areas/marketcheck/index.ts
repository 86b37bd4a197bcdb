import { storeCredentials } from '../../scenarios/credentials.js';
import { type AreaDefinition, Upstream } from '../../platform/area.js';
import { formatMarketcheckError } from './errors.js';
import { placeCatalog } from './queries.js';
import { marketcheckDocs, marketcheckExamples } from './examples.js';
import { marketcheckPlugin, rateLimitOf } from './routes.js';
import { marketcheckHint } from './hints.js';

/** Shown in the catalog when no key list is configured (then any non-empty key works). */
export const DEMO_API_KEY = 'mockyard-demo';

export const marketcheckArea: AreaDefinition = {
  name: 'marketcheck',
  letter: 'B',
  title: 'MarketCheck API v2',
  prefix: '/marketcheck',
  upstream: new Upstream('https://marketcheck-prod.apigee.net/v2'),
  plugin: marketcheckPlugin,
  catalog: (store, config) => ({
    apiKeys: [
      ...(storeCredentials(store, 'marketcheck') ??
        (config.marketcheckApiKeys.length > 0 ? config.marketcheckApiKeys : [DEMO_API_KEY])),
    ],
    ...placeCatalog(store),
  }),
  formatError: (context) => formatMarketcheckError(context, rateLimitOf),
  // The key is in the query. With a rate limit every answer depends on the count so far: nothing is kept.
  examples: (store, config) => marketcheckExamples(store, config, DEMO_API_KEY),
  docs: (store, config) => marketcheckDocs(store, config, DEMO_API_KEY),
  answerCache: (config) => (config.marketcheckRateLimit > 0 ? null : { vary: [] }),
  hint: marketcheckHint,
};
