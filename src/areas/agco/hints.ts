// mockyard-hint texts for AGCO's 401 and 404 answers.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';

export function agcoHint(request: FastifyRequest, status: number, config: Config): string | undefined {
  if (status === 401) {
    const auth = request.headers.authorization;
    const accepted = config.agcoTokens.length > 0 ? 'one of the tokens given to --agco-tokens' : 'any non-empty token';
    const why =
      auth === undefined
        ? 'no Authorization header was sent'
        : /^bearer\s+\S/i.test(auth)
          ? 'the bearer token is not accepted'
          : 'the Authorization header is not "Bearer <token>"';
    return `AGCO expects Authorization: Bearer <token> and ${why}; ${accepted} works. Tokens are listed at /__mockyard/fixtures under agco.tokens.`;
  }
  if (status === 404) return 'The AGCO area serves GET /api/v2/StringDefinitions; see /docs.';
  return undefined;
}
