// The `mockyard-hint` response header: a faithful 401 or 404 says nothing about why; this header does,
// leaving the real service's status and body untouched.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { AreaDefinition } from '../area.js';
import type { Config } from '../../config.js';

export const HINT_HEADER = 'mockyard-hint';
const HINTED = new Set([401, 403, 404]);

export interface HintOptions {
  areaOf: (url: string) => AreaDefinition | undefined;
  config: Config;
}

async function hints(app: FastifyInstance, opts: HintOptions): Promise<void> {
  // A callback hook: most answers are not auth or not-found answers and pass through untouched.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (HINTED.has(reply.statusCode)) {
      const hint = opts.areaOf(request.url)?.hint?.(request, reply.statusCode, opts.config);
      if (hint) reply.header(HINT_HEADER, hint);
    }
    done(null, payload);
  });
}

export const hintsPlugin = fp(hints, { name: 'mockyard-hints' });
