// What an area is to the platform: a plugin, a catalog, one way to write an error, and what changes its answers.
//
// Validation policy, for every area, applied by one mechanism: the area's own parser is the only
// validator, and the only one that rejects. Fastify's schema validation is switched off for every area
// route (`areaScope` in http/area-errors.ts sets a validator compiler that accepts everything), because
// real services read their parameters in their own ways (PHP brackets, ASP.NET binding, case rules) and
// answer bad ones in their own error shapes, which JSON Schema cannot express. A parser throws an error
// of the area (an HttpError subclass) and the area's `formatError` writes it: one error path per area.
// Route schemas document the parameters for /openapi.json, and test/platform/schema-parser.test.ts
// proves that schema and parser agree on every parameter. Response schemas document the answers: areas
// send bytes serialised ahead of time, and the contract tests check those bytes against the real
// services' contracts.
//
// mockyard's own surfaces are not areas and follow their own rule, one mechanism each, stated here so the
// policy is in one place: admin routes (/__mockyard, /__admin) are validated by their Fastify route schemas
// and answer mockyard's own error (http/mockyard-errors.ts); bodies that define data, a scenario
// (scenarios/schema.ts, checked by ScenarioBodyChecker) or a WireMock mapping (stubs/mapping.ts, WireMock's
// own format), are checked when they are parsed, and a refusal names the JSON pointer of the first problem.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AreaName } from '../../fixtures/types.js';
import type { Config } from '../config.js';
import type { FixtureStore } from './data/fixture-store.js';

export type { AreaName };

export interface AreaPluginOptions {
  config: Config;
}

export interface ErrorContext {
  status: number;
  /** What went wrong, for a person; undefined asks for the area's natural message for this status here. */
  message: string | undefined;
  request: FastifyRequest;
  /** The error that was thrown, when there was one (an area may carry extra fields on its own errors). */
  cause?: unknown;
}

export interface ErrorAnswer {
  /** Defaults to the status asked for. */
  status?: number;
  contentType: string;
  body: string | Buffer;
  headers?: Record<string, string | number>;
}

/** A request a user can copy and send as it is: the dashboard lists these under Fixtures. */
export interface AreaExample {
  title: string;
  method: 'GET' | 'POST';
  /** Path and query below the area's base URL, already encoded. */
  path: string;
  headers?: Record<string, string>;
}

/** Values Swagger UI prefills for one operation: parameters by name, and the JSON request body. */
export interface OperationExample {
  parameters?: Record<string, unknown>;
  body?: unknown;
}

/** What /docs prefills so that "Try it out" then "Execute" succeeds with this store's data. */
export interface AreaDocs {
  /** By operationId. */
  operations: Record<string, OperationExample>;
  /** Values for the area's security schemes (by scheme name) that Swagger UI authorizes with on load. */
  credentials?: Record<string, string>;
}

/**
 * What an area declares about its answers (AreaDefinition.answerCache): the request headers that change
 * an answer besides method, path and query (credentials, Accept, conditional headers). An area without
 * a policy is never cached; a route opts out with `config: { answerCache: false }`.
 */
export interface AnswerCachePolicy {
  vary: readonly string[];
}

/** A real service's base URL, read once: its host and base path are used on every stub request. */
export class Upstream {
  readonly host: string;
  /** The URL's path without a trailing slash ('' for a bare host). */
  readonly basePath: string;

  constructor(readonly url: string) {
    const parsed = new URL(url);
    this.host = parsed.hostname;
    this.basePath = parsed.pathname.replace(/\/$/, '');
  }

  toString(): string {
    return this.url;
  }
}

export interface AreaDefinition {
  name: AreaName;
  letter: 'A' | 'B' | 'C' | 'D' | 'E';
  title: string;
  /** Where the area lives on the shared port. */
  prefix: `/${AreaName}`;
  /** The real service's base URL that a client swaps for mockyard's. */
  upstream: Upstream;
  plugin: FastifyPluginAsync<AreaPluginOptions>;
  /** This area's part of GET /__mockyard/fixtures: identifiers a user can try. */
  catalog(store: FixtureStore, config: Config): unknown;
  /** Ready-to-send requests built from this store's data (identifiers, keys and tokens that work). */
  examples?(store: FixtureStore, config: Config): AreaExample[];
  /** Prefilled values for /docs, from the same data as `examples`. */
  docs?(store: FixtureStore, config: Config): AreaDocs;
  /**
   * How the real service writes an error. The platform sends every error of the area through it: thrown
   * errors, unknown paths (404), statuses forced by `Prefer: code=` or the error rate, and requests
   * refused before routing (malformed or over-long URLs).
   */
  formatError(context: ErrorContext): ErrorAnswer;
  /**
   * A `mockyard-hint` header for an auth or not-found answer: what the real service expected and where
   * valid identifiers or tokens are listed. The body stays exactly the real service's.
   */
  hint?(request: FastifyRequest, status: number, config: Config): string | undefined;
  /**
   * Which answers the platform's answer cache may keep (http/answer-cache.ts): the request headers that
   * change a 200 answer besides method, path and query. Undefined or null: this area is never cached.
   */
  answerCache?(config: Config): AnswerCachePolicy | null;
}
