import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaName } from '../../fixtures/types.js';
import type { Config } from '../config.js';
import type { FixtureStore } from '../platform/fixture-store.js';

export type { AreaName };

export interface AreaPluginOptions {
  config: Config;
  store: FixtureStore;
}

export interface AreaDefinition {
  name: AreaName;
  /** The letter SPEC.md uses for the area. */
  letter: 'A' | 'B' | 'C' | 'D' | 'E';
  title: string;
  /** Where the area lives on the shared port. */
  prefix: `/${AreaName}`;
  /** The real service's base URL that a client swaps for mockyard's. */
  upstream: string;
  plugin: FastifyPluginAsync<AreaPluginOptions>;
  /** This area's part of GET /__mockyard/fixtures: identifiers a user can try. */
  catalog(store: FixtureStore, config: Config): unknown;
  /**
   * The error statuses each operation documents, and how to answer one of them with the area's real
   * body. The platform uses it for `Prefer: code=<status>` and for the server-wide error rate.
   */
  forced: ForcedResponses;
  /**
   * Answers a client error that the platform catches before any route runs (a malformed URL, a URL or
   * query over mockyard's documented limits) in the area's own error shape, with this status.
   */
  clientError(request: FastifyRequest, reply: FastifyReply, status: 400 | 414, message: string): FastifyReply;
  /**
   * A `mockyard-hint` header for an auth or not-found answer: what the real service expected and where
   * valid identifiers or tokens are listed. The body stays exactly the real service's.
   */
  hint?(request: FastifyRequest, status: number, config: Config): string | undefined;
}

export interface ForcedResponses {
  /** operationId -> documented error statuses that can be forced. */
  statuses: Readonly<Record<string, readonly number[]>>;
  /**
   * Sends the area's native response for that status (same body and headers as when it happens naturally),
   * with the store and config of the app that received the request.
   */
  send(request: FastifyRequest, reply: FastifyReply, operationId: string, status: number, context: AreaPluginOptions): FastifyReply;
}
