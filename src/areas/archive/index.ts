import { STATUS_CODES } from '../../platform/http/node-http.js';
import type { AreaDefinition } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { HTML, errorPage } from './errors.js';
const JSON_TYPE = 'application/json; charset=utf-8';
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
  upstream: 'https://archive.org',
  plugin: archiveRoutes,
  catalog,
  examples: archiveExamples,
  docs: archiveDocs,
  // archive.org's pages carry no message: the status picks the page. Its search APIs answer 4xx in JSON:
  // the scrape API {error, errorType}, advancedsearch Solr's {responseHeader, error: {msg, code}}.
  formatError: ({ status, message, request }) => {
    // Requests refused before routing (client-errors.ts) come without route options.
    const operation = request.routeOptions?.schema?.operationId;
    const text = message ?? STATUS_CODES[status] ?? 'Error';
    if (status < 500 && (operation === 'scrapeSearch' || operation === 'scrapeSearchPost'))
      return { contentType: JSON_TYPE, body: JSON.stringify({ error: text, errorType: 'QueryError' }) };
    if (status < 500 && operation === 'advancedSearch') {
      const body = { responseHeader: { status, QTime: 0, params: {} }, error: { msg: text, code: status } };
      return { contentType: JSON_TYPE, body: JSON.stringify(body) };
    }
    return { contentType: HTML, body: errorPage(status) };
  },
  // Metadata answers depend on the URL alone; file answers are streamed and never kept.
  answerCache: () => ({ vary: ['range', 'if-range', 'if-none-match', 'if-modified-since'] }),
  hint: archiveHint,
};
