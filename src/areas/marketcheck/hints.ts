// mockyard-hint texts for MarketCheck's 401 and 404 answers.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';

export function marketcheckHint(request: FastifyRequest, status: number, config: Config): string | undefined {
  if (status === 401) {
    const accepted =
      config.marketcheckApiKeys.length > 0 ? 'one of the keys given to --marketcheck-api-keys' : 'any non-empty key';
    const sentAsHeader = request.headers.authorization !== undefined || request.headers['x-api-key'] !== undefined;
    return `MarketCheck expects the key as the api_key query parameter${sentAsHeader ? ' (not a header)' : ''}; ${accepted} works. Keys are listed at /__mockyard/fixtures under marketcheck.apiKeys.`;
  }
  if (status === 404) return 'The MarketCheck area serves GET /popular/cars?api_key=...&car_type=new|used; see /docs.';
  return undefined;
}
