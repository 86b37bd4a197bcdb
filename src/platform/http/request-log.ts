// One log line per answered request, with credentials masked by the journal's rule.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../area.js';
import { LOG_LEVELS, type Config } from '../../config.js';
import { maskUrl } from '../controls/journal.js';
import { tokenMask } from '../controls/secrets.js';

export interface RequestLogOptions {
  areaOf: (url: string) => AreaDefinition | undefined;
  /** Whether the log goes to a person at a terminal; CI logs and pipes would drown in request lines. */
  terminal: boolean;
}

/** pino serializer for `req`, used by Fastify's own error lines: the URL with secrets masked. */
export function requestSerializer(config: Config) {
  const token = tokenMask(config.adminToken);
  return (request: FastifyRequest) => ({
    method: request.method,
    url: maskUrl(request.url, token),
    host: request.host,
    remoteAddress: request.ip,
  });
}

/** Installs the request log when the level asks for it; true when it did (answers are then logged one by one). */
export function installRequestLog(app: FastifyInstance, config: Config, opts: RequestLogOptions): boolean {
  if (config.quiet || config.logLevel === 'silent') return false;
  // On a terminal at info, elsewhere only at debug (the journal has them too).
  const level = opts.terminal ? 'info' : 'debug';
  if (LOG_LEVELS.indexOf(config.logLevel) < LOG_LEVELS.indexOf(level)) return false;
  const token = tokenMask(config.adminToken);
  app.addHook('onResponse', async (request, reply) => {
    const url = maskUrl(request.url, token);
    const area = opts.areaOf(request.url)?.name ?? 'mockyard';
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const status = reply.statusCode;
    if (opts.terminal) {
      // One line a person can scan; pino-pretty would print an object's fields on lines of their own.
      request.log[level](`${request.method} ${url} ${status} ${ms} ms ${area}`);
    } else {
      request.log[level]({ method: request.method, url, status, ms, area }, 'request');
    }
  });
  return true;
}
