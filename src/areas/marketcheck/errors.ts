// MarketCheck's error bodies: {code, message} from the API, {message} from the rate-limiting gateway.
import type { FastifyReply } from 'fastify';
import type { ErrorAnswer, ErrorContext } from '../../platform/area.js';
import { HttpError } from '../../platform/http/error-types.js';
import type { RateLimitState } from './rate-limit.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const RATE_LIMIT_MESSAGE = 'API rate limit exceeded';
export const MISSING_KEY_MESSAGE = 'Missing api_key. Pass your MarketCheck API key in the api_key query parameter.';
export const UNKNOWN_KEY_MESSAGE = 'Invalid api_key. The key is not recognised.';

const NATURAL: Record<number, string> = {
  400: 'Missing required parameter car_type: use car_type=new or car_type=used',
  401: MISSING_KEY_MESSAGE,
};

/** An error of the API ({code, message}), or of the gateway's rate limit when `limited` is set. */
export class MarketcheckError extends HttpError {
  constructor(
    status: number,
    message: string,
    readonly limited?: { state: RateLimitState; now: number },
  ) {
    super(status, message);
  }
}

function limitHeaders(state: RateLimitState): Record<string, string | number> {
  return {
    'RateLimit-Limit': state.limit,
    'RateLimit-Remaining': state.remaining,
    // Documented as an ISO timestamp; MarketCheck's example has whole seconds.
    'RateLimit-Reset-Time': new Date(state.resetAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

/** The gateway's headers on a refused request. */
export function rateLimitHeaders(state: RateLimitState, now: number): Record<string, string | number> {
  return { ...limitHeaders(state), 'Retry-After': Math.max(1, Math.ceil((state.resetAt - now) / 1000)) };
}

export function setRateLimitHeaders(reply: FastifyReply, state: RateLimitState): void {
  reply.headers(limitHeaders(state));
}

/**
 * MarketCheck's API writes {code, message}; its rate-limiting gateway writes {message} with RateLimit-*
 * headers. The one error path of the area: thrown, forced and not-found errors all leave here.
 */
export function formatMarketcheckError(
  { status, message, request, cause }: ErrorContext,
  limitOf: (request: ErrorContext['request']) => number,
): ErrorAnswer {
  if (status === 429) {
    const now = cause instanceof MarketcheckError && cause.limited ? cause.limited.now : Date.now();
    const state =
      cause instanceof MarketcheckError && cause.limited
        ? cause.limited.state
        : { limit: limitOf(request), remaining: 0, resetAt: (Math.floor(now / 1000) + 1) * 1000, allowed: false };
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
