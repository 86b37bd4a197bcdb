// The JSON body parser of every route: Fastify's own (prototype poisoning refused), behind a nesting bound.
import type { FastifyInstance } from 'fastify';

/**
 * Deepest nesting of arrays and objects a JSON body may have. Every body mockyard reads (a DKAN query, a
 * scenario) is a few levels deep; code that walks a parsed body recursively must not meet thousands.
 */
export const MAX_JSON_DEPTH = 64;

/** How deep `text` nests, stopping as soon as it passes `limit`: one pass, no parse. */
export function jsonDepthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

export class JsonDepthError extends Error {
  readonly statusCode = 400;
  readonly code = 'MOCKYARD_JSON_TOO_DEEP';
  constructor() {
    super(
      `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; mockyard reads at most ${MAX_JSON_DEPTH}.`,
    );
  }
}

/**
 * Each JSON request body as sent, by request: what the journal keeps (cut to its limit, masked when read)
 * instead of the parsed objects, which take many times the bytes.
 */
export const sentJson = new WeakMap<object, string>();

export function installJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonDepthOver(body as string, MAX_JSON_DEPTH)) return done(new JsonDepthError(), undefined);
    sentJson.set(request.raw, body as string);
    return parse(request, body as string, done);
  });
}
