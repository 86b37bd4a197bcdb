// Request bounds checked before routing, answered in the error shape of the area the URL points into.
import { sendMockyardError } from './mockyard-errors.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../area.js';
import { sendAreaError } from './area-errors.js';
import type { Config } from '../../config.js';

/** Longest request target (path + query) mockyard serves; nginx-fronted services refuse far less. */
export const MAX_URL_LENGTH = 16 * 1024;
/** Most query parameters in one request. */
export const MAX_QUERY_PARAMETERS = 1000;
/** Longest path parameter Fastify's router takes (a longer one is a 414). */
export const MAX_PARAM_LENGTH = 1024;
/**
 * Node's own header limit, raised so URLs a bit over MAX_URL_LENGTH still reach us and get a 414 in
 * the area's shape; past this Node itself answers 431.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** Node's server options: header size, and how long a client may take to send its request. */
export function httpServerOptions(config: Pick<Config, 'headersTimeout' | 'bodyTimeout'>) {
  return {
    maxHeaderSize: MAX_HEADER_BYTES,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeout: Math.min(config.headersTimeout, config.bodyTimeout),
    requestTimeout: config.bodyTimeout,
    // Node checks the two timeouts this often (its default, 30 s, would let a stalled client stay that much longer).
    connectionsCheckingInterval: Math.min(1000, config.headersTimeout),
  };
}

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/** The area a request URL belongs to: by prefix on the shared port; on an area's own port, all but mockyard's routes. */
export function areaResolver(
  areas: readonly AreaDefinition[],
  only?: AreaDefinition,
): (url: string) => AreaDefinition | undefined {
  if (only) {
    return (url) => {
      const p = pathOf(url);
      return p.startsWith('/__mockyard') ||
        p.startsWith('/__admin') ||
        p === '/openapi.json' ||
        p === '/docs' ||
        p.startsWith('/docs/')
        ? undefined
        : only;
    };
  }
  // The prefixes with their separators, made once: this runs for every request.
  const starts = areas.map((area) => ({
    area,
    prefix: area.prefix,
    path: `${area.prefix}/`,
    query: `${area.prefix}?`,
  }));
  return (url) => starts.find((s) => url === s.prefix || url.startsWith(s.path) || url.startsWith(s.query))?.area;
}

function reject(
  request: FastifyRequest,
  reply: FastifyReply,
  area: AreaDefinition | undefined,
  status: 400 | 414,
  message: string,
): FastifyReply {
  if (area) return sendAreaError(area, request, reply, status, message);
  return sendMockyardError(reply, status, message);
}

/** Fastify's `frameworkErrors`: errors raised while routing (bad percent-encoding, over-long path parameters). */
export function frameworkErrorHandler(areaOf: (url: string) => AreaDefinition | undefined) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const area = areaOf(request.url);
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      reject(request, reply, area, 414, 'A path segment of the request URL is too long.');
    } else {
      reject(request, reply, area, 400, 'The request URL is not valid: it contains malformed percent-encoding.');
    }
  };
}

/** The bound a request target breaks, if any: what `withinLimits` answers, and what keeps a request off the front path. */
export function urlLimitBreach(url: string): { status: 400 | 414; message: string } | null {
  if (url.length > MAX_URL_LENGTH)
    return {
      status: 414,
      message: `The request URL is ${url.length} characters long; mockyard serves at most ${MAX_URL_LENGTH}.`,
    };
  const q = url.indexOf('?');
  if (q < 0) return null;
  let params = 1;
  for (let i = q; i < url.length; i++) if (url.charCodeAt(i) === 38 /* & */) params++;
  if (params <= MAX_QUERY_PARAMETERS) return null;
  return {
    status: 400,
    message: `The request has ${params} query parameters; mockyard accepts at most ${MAX_QUERY_PARAMETERS}.`,
  };
}

/** The limits step of the pipeline: false when the request was refused (and answered). */
export function withinLimits(
  request: FastifyRequest,
  reply: FastifyReply,
  areaOf: (url: string) => AreaDefinition | undefined,
): boolean {
  const breach = urlLimitBreach(request.url);
  if (breach === null) return true;
  reject(request, reply, areaOf(request.url), breach.status, breach.message);
  return false;
}
