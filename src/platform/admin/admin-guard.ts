// The guards every admin route family shares (/__mockyard, and any other admin prefix): which Host names may
// reach them, and the admin token with its lockout after failed guesses.
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import { sendMockyardError } from '../http/mockyard-errors.js';

/**
 * Admin routes a container platform probes by pod IP or service name: readiness must answer every Host. Known
 * by the route the request reached, so `/__mockyard/health/` and encoded spellings are open too.
 */
const OPEN_ROUTES = new Set(['/__mockyard/health']);

/** The host name of a Host header: lower case, without port, brackets or a trailing dot. */
export function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  let name: string;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return null;
    name = value.slice(1, end);
  } else {
    const colon = value.indexOf(':');
    name = colon < 0 ? value : value.slice(0, colon);
  }
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/**
 * Host names mockyard answers admin requests for. DNS rebinding needs a name the attacker controls, so
 * IP addresses (any interface mockyard is bound to, e.g. 0.0.0.0 in a container) are always fine, as are
 * localhost and *.localhost (RFC 6761: always loopback), the --host address and --allowed-hosts.
 */
export function allowedHost(config: Pick<Config, 'host' | 'allowedHosts'>): (header: string | undefined) => boolean {
  const listed = new Set([...config.allowedHosts, config.host.toLowerCase()]);
  const any = listed.has('*');
  return (header) => {
    if (any) return true;
    const name = hostName(header);
    if (name === null || name === '') return false;
    if (name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0) return true;
    return listed.has(name);
  };
}

/**
 * The first onRequest hook of every admin route family (area routes never run it): a request with a Host
 * that mockyard does not serve gets 403 before anything else of the family runs, token check included, so a
 * page on a rebound name cannot reset, read the journal or upload a scenario.
 */
export function adminHostGuard(config: Pick<Config, 'host' | 'allowedHosts'>): onRequestHookHandler {
  const allowed = allowedHost(config);
  return (request, reply, done) => {
    if (allowed(request.headers.host) || OPEN_ROUTES.has(request.routeOptions.url ?? '')) return done();
    void sendMockyardError(
      reply,
      403,
      `Admin routes answer only to localhost, IP addresses, --host and --allowed-hosts; "${hostName(request.headers.host) ?? ''}" is none of them. Start mockyard with --allowed-hosts ${hostName(request.headers.host) ?? 'NAME'} if you call it by that name.`,
    );
  };
}

/** The guards of an admin route family: the host check always, the token check when --admin-token is set. */
export interface AdminGuards {
  host: onRequestHookHandler;
  token: onRequestHookHandler | null;
}

/** Installs an admin route family's guards as its first onRequest hooks: the host first, then the token. */
export function guardAdminScope(app: FastifyInstance, guards: AdminGuards, withToken = true): void {
  app.addHook('onRequest', guards.host);
  if (withToken && guards.token) app.addHook('onRequest', guards.token);
}

/** Failed admin-token attempts one client may make per window before it is locked out for the rest of it. */
export const TOKEN_FAILURES_ALLOWED = 10;
export const TOKEN_WINDOW_MS = 60_000;

export interface TokenGuardOptions {
  /** The clock (tests inject one). */
  now?: () => number;
}

/**
 * The admin token check, as an onRequest hook for an admin route family; null when no token is set.
 * A client (by address) that sends TOKEN_FAILURES_ALLOWED wrong tokens (a missing one is not a guess) within
 * TOKEN_WINDOW_MS gets 429 with Retry-After for the rest of the window, whatever it sends, so guessing is
 * slowed to a few tries a minute. The comparison takes the same time for every wrong token of the same length.
 */
export function adminTokenGuard(
  config: Pick<Config, 'adminToken'>,
  options: TokenGuardOptions = {},
): onRequestHookHandler | null {
  if (config.adminToken === null) return null;
  const expected = Buffer.from(`Bearer ${config.adminToken}`);
  const now = options.now ?? Date.now;
  const failures = new LRUCache<string, { count: number; since: number }>({ max: 10_000 });
  const refuse = (reply: FastifyReply, status: 401 | 429, message: string) => sendMockyardError(reply, status, message);

  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const client = request.ip;
    const t = now();
    let record = failures.get(client);
    if (record && t - record.since >= TOKEN_WINDOW_MS) {
      failures.delete(client);
      record = undefined;
    }
    if (record && record.count >= TOKEN_FAILURES_ALLOWED) {
      reply.header('retry-after', String(Math.ceil((record.since + TOKEN_WINDOW_MS - t) / 1000)));
      return void refuse(
        reply,
        429,
        `Too many wrong admin tokens from ${client}; try again after Retry-After seconds.`,
      );
    }
    const header = request.headers.authorization;
    const given = Buffer.from(header ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return done();
    // Only a token sent is a guess: a request without one (a page, a probe, a forgotten header) learns nothing,
    // and counting it would lock the right token out after a few such requests.
    if (header !== undefined) {
      if (record) record.count += 1;
      else failures.set(client, { count: 1, since: t });
    }
    reply.header('www-authenticate', 'Bearer realm="mockyard"');
    return void refuse(reply, 401, 'Admin routes need Authorization: Bearer <the --admin-token value>');
  };
}
