// Request bounds checked before routing, answered in the error shape of the area the URL points into.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../areas/types.js';

/** Longest request target (path + query) mockyard serves; nginx-fronted services refuse far less. */
export const MAX_URL_LENGTH = 16 * 1024;
/** Most query parameters in one request. */
export const MAX_QUERY_PARAMETERS = 1000;
/**
 * Node's own header limit, raised so URLs a bit over MAX_URL_LENGTH still reach us and get a 414 in
 * the area's shape; past this Node itself answers 431.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

export function areaOf(url: string, areas: readonly AreaDefinition[], only?: AreaDefinition): AreaDefinition | undefined {
  if (only) return only;
  return areas.find((a) => url === a.prefix || url.startsWith(`${a.prefix}/`) || url.startsWith(`${a.prefix}?`));
}

function reject(request: FastifyRequest, reply: FastifyReply, area: AreaDefinition | undefined, status: 400 | 414, message: string): FastifyReply {
  if (area) return area.clientError(request, reply, status, message);
  return reply.code(status).send({ statusCode: status, error: status === 414 ? 'URI Too Long' : 'Bad Request', message });
}

/** Fastify's `frameworkErrors`: errors raised while routing (bad percent-encoding, over-long path parameters). */
export function frameworkErrorHandler(areas: readonly AreaDefinition[], only?: AreaDefinition) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const area = areaOf(request.url, areas, only);
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      reject(request, reply, area, 414, 'A path segment of the request URL is too long.');
    } else {
      reject(request, reply, area, 400, 'The request URL is not valid: it contains malformed percent-encoding.');
    }
  };
}

export function installLimits(app: FastifyInstance, areas: readonly AreaDefinition[], only?: AreaDefinition): void {
  // A callback hook, not an async one: it runs on every request and almost always just passes.
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    if (url.length > MAX_URL_LENGTH) {
      reject(request, reply, areaOf(url, areas, only), 414, `The request URL is ${url.length} characters long; mockyard serves at most ${MAX_URL_LENGTH}.`);
      return;
    }
    const q = url.indexOf('?');
    if (q >= 0) {
      let params = 1;
      for (let i = q; i < url.length; i++) if (url.charCodeAt(i) === 38 /* & */) params++;
      if (params > MAX_QUERY_PARAMETERS) {
        reject(request, reply, areaOf(url, areas, only), 400, `The request has ${params} query parameters; mockyard accepts at most ${MAX_QUERY_PARAMETERS}.`);
        return;
      }
    }
    done();
  });
}
