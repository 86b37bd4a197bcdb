// mockyard-hint texts for App Center's 401 and 404 answers, which carry no explanation in their body.
import type { FastifyRequest } from 'fastify';

export function appcenterHint(request: FastifyRequest, status: number): string | undefined {
  if (status === 401) {
    const token = request.headers['x-api-token'];
    const why =
      token === undefined || token === ''
        ? request.headers.authorization !== undefined
          ? 'App Center reads the token from the X-API-Token header, not from Authorization'
          : 'no X-API-Token header was sent'
        : 'the X-API-Token is not a known user token';
    return `${why}. Valid tokens, with the apps each user can see, are listed at /__mockyard/fixtures under appcenter.tokens.`;
  }
  if (status === 404) {
    if (/\/v0\.1\/apps\/[^/]+\/[^/?]+/.test(request.url)) {
      return "No such app, or this token's user cannot see it (App Center answers 404 for both); apps and their users are listed at /__mockyard/fixtures under appcenter.";
    }
    return 'The App Center area serves /v0.1/user, /v0.1/apps[/{owner_name}/{app_name}] with its releases, recent_releases and distribution_groups; see /docs.';
  }
  return undefined;
}
