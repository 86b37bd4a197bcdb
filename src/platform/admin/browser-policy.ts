// What a web page on another site may do with mockyard: CORS per route family, and no state change from a form.
import { sendMockyardError } from '../http/mockyard-errors.js';
import { HINT_HEADER } from '../http/hints.js';
import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, onRequestHookHandler, preValidationHookHandler } from 'fastify';
import type { Config } from '../../config.js';

export const ADMIN_PREFIX = '/__mockyard';
/** A header a page can only send cross-site after a CORS preflight, which admin routes refuse to foreign origins. */
export const ADMIN_HEADER = 'x-mockyard-admin';

const EXPOSED_HEADERS = [
  'Content-Range',
  'Content-Length',
  'ETag',
  'Last-Modified',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset-Time',
  'Preference-Applied',
  'Mockyard-Error',
  HINT_HEADER,
];

/** WireMock's admin API (src/stubs/admin.ts) is an admin route family too. */
export const WIREMOCK_PREFIX = '/__admin';
const under = (url: string, prefix: string): boolean =>
  url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`);
const isAdmin = (url: string): boolean => under(url, ADMIN_PREFIX) || under(url, WIREMOCK_PREFIX);

/** Origins listed by name in --cors-origins: the only pages that may use the admin routes. */
export const adminOriginAllowed = (config: Config) => {
  const listed = new Set(config.corsOrigins.filter((o) => o !== '*'));
  return (origin: string): boolean => listed.has(origin);
};

type OriginCallback = (err: Error | null, allow: boolean) => void;

/**
 * What corsOptions add to the answer of a request without Origin: its origin is a function, so
 * @fastify/cors sends `Vary: Origin` and nothing else. The pipeline's front path writes these itself.
 */
export const CORS_WITHOUT_ORIGIN = Object.freeze({ vary: 'Origin' });

/**
 * CORS for @fastify/cors, static options resolved once (a per-request options delegator cost a quarter of
 * the throughput of a cached answer):
 * - area routes: an origin on --cors-origins, or any origin with `*`, is reflected with credentials, as a
 *   front end under development needs; `null` (sandboxed frames, file: pages) is never answered.
 * - admin routes (/__mockyard/*: journal, reset, catalog, health): only origins listed by name, through
 *   the route-level options `installAdminCors` gives them; `*` does not open them, and their preflight is
 *   refused to other origins.
 * Requests without Origin (servers, curl) get no CORS headers at all.
 */
export function corsOptions(config: Config): FastifyCorsOptions {
  const anyOrigin = config.corsOrigins.includes('*');
  const listed = adminOriginAllowed(config);
  return {
    hook: 'onRequest',
    credentials: true,
    exposedHeaders: EXPOSED_HEADERS,
    origin: (origin: string | undefined, callback: OriginCallback) =>
      callback(null, origin !== undefined && origin !== 'null' && (anyOrigin || listed(origin))),
  };
}

/**
 * Admin routes answer CORS only for listed origins, and refuse state changes a web form could send:
 * every /__mockyard route gets that origin rule as its route-level CORS options and the admin guard as
 * its own preValidation hook (area routes pay for neither), and an OPTIONS route of their own answers
 * (or refuses) their preflights. Call before the admin routes are registered.
 */
export function installAdminPolicy(app: FastifyInstance, config: Config, hostGuard: onRequestHookHandler): void {
  const listed = adminOriginAllowed(config);
  const cors = {
    origin: (origin: string | undefined, callback: OriginCallback) =>
      callback(null, origin !== undefined && listed(origin)),
  };
  const guard = adminGuard(listed);
  app.addHook('onRoute', (route) => {
    if (!isAdmin(route.url)) return;
    route.config = { ...(route.config as object), cors } as typeof route.config;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => SAFE_METHODS.has(m))) return;
    const own = route.preValidation;
    route.preValidation = own === undefined ? [guard] : [guard, ...(Array.isArray(own) ? own : [own])];
  });
  // A refused preflight gets no CORS headers, so the browser never sends the request itself.
  for (const prefix of [ADMIN_PREFIX, WIREMOCK_PREFIX])
    app.options(`${prefix}/*`, { schema: { hide: true }, onRequest: hostGuard }, (_request, reply) =>
      reply.code(204).send(),
    );
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The body types an HTML form (or a no-cors fetch) can send without a CORS preflight. */
const FORM_TYPES = /^(?:text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\s*(?:;|$)/i;

/**
 * State-changing admin requests that a web page could send without a CORS preflight are refused unless
 * they carry a JSON body (Content-Type: application/json) or a custom header (X-Mockyard-Admin, or the
 * Authorization that --admin-token asks for), which need a preflight from a browser. Those are a form's
 * body types (text/plain, urlencoded, multipart) and any request a browser marks as coming from a page
 * (it sends Origin with every POST, PUT and DELETE). A test runner or curl without a body sends neither,
 * and DELETE or a JSON PUT from a page always needs the preflight that admin routes refuse to foreign origins.
 * It runs at preValidation, after onRequest, so a missing admin token is still a 401.
 */
function adminGuard(allowed: (origin: string) => boolean): preValidationHookHandler {
  return (request, reply, done) => {
    if (SAFE_METHODS.has(request.method)) return done();
    const type = request.headers['content-type'];
    const json = typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type);
    if (json || request.headers[ADMIN_HEADER] !== undefined || request.headers.authorization !== undefined)
      return done();
    const origin = request.headers.origin;
    const fromPage = origin !== undefined && !allowed(origin);
    const formBody = typeof type === 'string' && FORM_TYPES.test(type);
    if (!fromPage && !formBody) return done();
    sendMockyardError(
      reply,
      403,
      `State-changing admin requests need a JSON body (Content-Type: application/json) or an ${ADMIN_HEADER} header, so that a form on a web page cannot send them.`,
    );
  };
}
