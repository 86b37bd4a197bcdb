// Area D: AGCO ATS string definitions (GET /api/v2/StringDefinitions).
import { storeCredentials } from '../../scenarios/credentials.js';
import { type AreaDefinition, Upstream } from '../../platform/area.js';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { formatApiError } from './errors.js';
import { firstStringIds, listLanguages } from './queries.js';
import { stringDefinitionRoutes } from './routes.js';
import { agcoHint } from './hints.js';
import { agcoDocs, agcoExamples } from './examples.js';

/** Shown in the catalog when no --agco-tokens list is set; any non-empty token works then. */
export const EXAMPLE_TOKENS = ['mockyard-agco-token', 'demo-translator', 'ci-bot'];

const demoToken = (store: FixtureStore, config: Config): string =>
  [...(storeCredentials(store, 'agco') ?? [])][0] ?? config.agcoTokens[0] ?? EXAMPLE_TOKENS[0] ?? '';

export const agcoArea: AreaDefinition = {
  name: 'agco',
  letter: 'D',
  title: 'AGCO ATS API',
  prefix: '/agco',
  upstream: new Upstream('https://secure.agco-ats.com'),
  plugin: stringDefinitionRoutes,
  catalog: (store, config) => ({
    tokens: [
      ...(storeCredentials(store, 'agco') ?? (config.agcoTokens.length > 0 ? config.agcoTokens : EXAMPLE_TOKENS)),
    ],
    languages: listLanguages(store),
    stringIds: firstStringIds(store, 50),
  }),
  formatError: formatApiError,
  examples: (store, config) => agcoExamples(store, demoToken(store, config)),
  docs: (store, config) => agcoDocs(store, demoToken(store, config)),
  hint: agcoHint,
  // The bearer token decides 200 or 401; Accept decides JSON, text/json or XML.
  answerCache: () => ({ vary: ['authorization', 'accept'] }),
};
