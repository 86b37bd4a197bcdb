// Content negotiation as ASP.NET Web API does it: JSON by default, text/json, or DataContract-style XML.
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { sendParts } from '../../platform/http/send-parts.js';

export const MEDIA_TYPES = ['application/json', 'text/json', 'application/xml', 'text/xml'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/**
 * The best of the four formats for an Accept header; JSON when none is acceptable. negotiator ranks as Web API's
 * DefaultContentNegotiator does: q-value, then the more specific range, then header order; a wildcard takes the
 * first of MEDIA_TYPES it covers, so any type and application/anything give JSON and text/anything gives text/json.
 */
export function negotiate(accept: string | undefined): MediaType {
  if (!accept) return 'application/json';
  const best = new Negotiator({ headers: { accept } }).mediaType([...MEDIA_TYPES]) as MediaType | undefined;
  return best ?? 'application/json';
}

export const isXml = (type: MediaType) => type.endsWith('/xml');

export const contentTypeOf = (type: MediaType): string => `${type}; charset=utf-8`;

/**
 * Sends a body already rendered for the negotiated type, with that type as Content-Type. A body from the query
 * executor comes in parts (a long one crossed in slices; see sendParts).
 */
export function sendAs(
  reply: FastifyReply,
  type: MediaType,
  status: number,
  body: string | Uint8Array[],
): FastifyReply {
  reply.code(status).type(contentTypeOf(type));
  if (typeof body === 'string') return reply.send(body);
  return sendParts(reply, body);
}

export function mediaTypeOf(request: FastifyRequest): MediaType {
  return negotiate(request.headers.accept);
}
