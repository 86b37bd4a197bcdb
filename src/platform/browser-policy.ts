// What a web page on another site may do with mockyard: CORS per route family, and no state change from a form.
import { HINT_HEADER } from './hints.js';
import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type AnyFastify = Pick<FastifyInstance, 'addHook'>;
import type { Config } from '../config.js';

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

const isAdmin = (url: string): boolean =>
  url === ADMIN_PREFIX || url.startsWith(`${ADMIN_PREFIX}/`) || url.startsWith(`${ADMIN_PREFIX}?`);

/**
 * CORS as @fastify/cors options per request:
 * - area routes: an origin on --cors-origins, or any origin with `*`, is reflected with credentials, as
 *   a front end under development needs; `null` (sandboxed frames, file: pages) is never reflected and
 *   gets a literal `*` without credentials under `*`, so it can read mock data but never with cookies.
 * - admin routes (/__mockyard/*: journal, reset, catalog, health): only origins listed by name on
 *   --cors-origins; `*` does not open them, and a refused preflight stops a cross-site state change.
 * Requests without Origin (servers, curl) get no CORS headers at all.
 */
/** Origins listed by name in --cors-origins: the only pages that may use the admin routes. */
export const adminOriginAllowed = (config: Config) => {
  const listed = new Set(config.corsOrigins.filter((o) => o !== '*'));
  return (origin: string): boolean => listed.has(origin);
};

export function corsDelegator(config: Config) {
  const anyOrigin = config.corsOrigins.includes('*');
  const listed = new Set(config.corsOrigins.filter((o) => o !== '*'));
  const base = { exposedHeaders: EXPOSED_HEADERS, hook: 'onRequest' } as const;
  const none: FastifyCorsOptions = { ...base, origin: false };
  const reflect: FastifyCorsOptions = { ...base, origin: true, credentials: true };
  const star: FastifyCorsOptions = { ...base, origin: '*', credentials: false };
  return (request: FastifyRequest, callback: (err: Error | null, options: FastifyCorsOptions) => void): void => {
    const origin = request.headers.origin;
    let options: FastifyCorsOptions;
    if (!origin) options = none;
    else if (listed.has(origin)) options = reflect;
    else if (isAdmin(request.url) || !anyOrigin) options = none;
    else options = origin === 'null' ? star : reflect;
    callback(null, options);
  };
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
 */
export function installAdminGuard(app: AnyFastify, allowed: (origin: string) => boolean): void {
  // After onRequest, so a missing admin token is still a 401 and an unknown route still a 404.
  app.addHook('preValidation', (request, reply, done) => {
    if (SAFE_METHODS.has(request.method) || !isAdmin(request.url) || request.routeOptions.url === undefined)
      return done();
    const type = request.headers['content-type'];
    const json = typeof type === 'string' && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type);
    if (json || request.headers[ADMIN_HEADER] !== undefined || request.headers.authorization !== undefined)
      return done();
    const origin = request.headers.origin;
    const fromPage = origin !== undefined && !allowed(origin);
    const formBody = typeof type === 'string' && FORM_TYPES.test(type);
    if (!fromPage && !formBody) return done();
    reply.code(403).send({
      statusCode: 403,
      error: 'Forbidden',
      message: `State-changing admin requests need a JSON body (Content-Type: application/json) or an ${ADMIN_HEADER} header, so that a form on a web page cannot send them.`,
    });
  });
}
