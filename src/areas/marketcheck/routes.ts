// GET /popular/cars: key check, optional rate limit, parameter check, then a ready JSON buffer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { storeCredentials } from '../../scenarios/credentials.js';
import type { AreaPluginOptions } from '../../platform/area.js';
import {
  JSON_TYPE,
  MISSING_KEY_MESSAGE,
  MarketcheckError,
  RATE_LIMIT_MESSAGE,
  UNKNOWN_KEY_MESSAGE,
  setRateLimitHeaders,
} from './errors.js';
import { parseRankingQuery, single, type RawQuery } from './params.js';
import { ranking } from './queries.js';
import { RateLimiter } from './rate-limit.js';
import { ErrorSchema, MessageErrorSchema, PopularCarsQuerySchema, PopularCarsSchema } from './schemas.js';

export const OPERATION_ID = 'getPopularCars';
/** MarketCheck's free and basic plans allow 5 requests per second. */
export const DEFAULT_RATE_LIMIT = 5;

/** The limit forced 429s report in their headers: the configured one, else MarketCheck's default. */
export function rateLimitOf(request: FastifyRequest): number {
  return request.server.config.marketcheckRateLimit || DEFAULT_RATE_LIMIT;
}

/** The stored text already matches PopularCarsSchema; a Buffer skips serialisation entirely. */
function sendReady(reply: FastifyReply, body: Buffer): void {
  void reply.header('content-type', JSON_TYPE).send(body);
}

export async function marketcheckPlugin(instance: FastifyInstance, { config }: AreaPluginOptions): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const keys = config.marketcheckApiKeys.length > 0 ? new Set(config.marketcheckApiKeys) : null;
  const limiter = config.marketcheckRateLimit > 0 ? new RateLimiter(config.marketcheckRateLimit) : null;
  if (limiter) {
    // POST /__mockyard/reset forgets the counts.
    const unsubscribe = app.runtime.onReset(() => limiter.reset());
    app.addHook('onClose', async () => {
      unsubscribe();
    });
  }

  app.get(
    '/popular/cars',
    {
      schema: {
        operationId: OPERATION_ID,
        tags: ['marketcheck'],
        security: [{ api_key: [] }],
        summary: 'Top 50 makes and models by listings at national, state or city level',
        description:
          'No state and no city_state: national ranking; state: that state or province; city_state (`<city>|<state_code>`): that city, and it wins over state. ' +
          "A place without listings answers []. Needs api_key; errors use MarketCheck's {code, message} body, rate limiting its {message} body with RateLimit-* headers.",
        querystring: PopularCarsQuerySchema,
        response: {
          200: PopularCarsSchema,
          400: ErrorSchema,
          401: ErrorSchema,
          429: MessageErrorSchema,
          default: ErrorSchema,
        },
      },
    },
    (request, reply) => {
      const q = request.query as RawQuery;
      const key = single(q.api_key);
      if (!key) throw new MarketcheckError(401, MISSING_KEY_MESSAGE);
      // A scenario that lists its own api keys accepts only those.
      const accepted = storeCredentials(request.store, 'marketcheck') ?? keys;
      if (accepted && !accepted.has(key)) throw new MarketcheckError(401, UNKNOWN_KEY_MESSAGE);
      if (limiter) {
        const now = Date.now();
        const state = limiter.take(key, now);
        if (!state.allowed) throw new MarketcheckError(429, RATE_LIMIT_MESSAGE, { state, now });
        setRateLimitHeaders(reply, state);
      }
      const parsed = parseRankingQuery(q);
      if ('error' in parsed) throw new MarketcheckError(400, parsed.error);
      sendReady(reply, ranking(request.store, parsed));
    },
  );
}
