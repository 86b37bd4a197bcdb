// mockyard-hint texts for MarketCheck's 401 and 404 answers.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { storeCredentials } from '../../scenarios/credentials.js';

export function marketcheckHint(request: FastifyRequest, status: number, config: Config): string | undefined {
  if (status === 401) {
    const scenario = request.scenario?.name;
    const own = scenario !== undefined && storeCredentials(request.store, 'marketcheck') !== null;
    const accepted = own
      ? `only the apiKeys of scenario ${scenario} work`
      : config.marketcheckApiKeys.length > 0
        ? 'one of the keys given to --marketcheck-api-keys works'
        : 'any non-empty key works';
    const listed = scenario
      ? `/__mockyard/fixtures (with the header Mockyard-Scenario: ${scenario})`
      : '/__mockyard/fixtures';
    const sentAsHeader = request.headers.authorization !== undefined || request.headers['x-api-key'] !== undefined;
    return `MarketCheck expects the key as the api_key query parameter${sentAsHeader ? ' (not a header)' : ''}; ${accepted}. Keys are listed at ${listed} under marketcheck.apiKeys.`;
  }
  if (status === 404) return 'The MarketCheck area serves GET /popular/cars?api_key=...&car_type=new|used; see /docs.';
  return undefined;
}
