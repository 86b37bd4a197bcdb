// MarketCheck's error bodies: {code, message} from the API, {message} from the rate-limiting gateway.
import type { FastifyReply } from 'fastify';
import type { RateLimitState } from './rate-limit.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const RATE_LIMIT_MESSAGE = 'API rate limit exceeded';
export const MISSING_KEY_MESSAGE = 'Missing api_key. Pass your MarketCheck API key in the api_key query parameter.';
export const UNKNOWN_KEY_MESSAGE = 'Invalid api_key. The key is not recognised.';

export function sendError(reply: FastifyReply, code: number, message: string): FastifyReply {
  return reply.code(code).header('content-type', JSON_TYPE).send({ code, message });
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

export function sendRateLimited(reply: FastifyReply, state: RateLimitState, now: number): FastifyReply {
  return reply
    .code(429)
    .headers(rateLimitHeaders(state, now))
    .header('content-type', JSON_TYPE)
    .send({ message: RATE_LIMIT_MESSAGE });
}
