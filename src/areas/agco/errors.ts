// AGCO's ApiError body, sent in whichever format the client negotiated.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiErrorXml, isXml, mediaTypeOf, sendAs } from './representation.js';
import type { ApiError } from './schemas.js';

const MORE_INFO = 'https://secure.agco-ats.com/swagger/ui/index#!/StringDefinitions/StringDefinitions_GetDefinitions';

/** A client error that leaves as an ApiError with this status. */
export class AgcoError extends Error {
  constructor(
    readonly status: number,
    readonly userMessage: string,
    readonly developerMessage: string = userMessage,
  ) {
    super(userMessage);
  }
}

export const UNAUTHORIZED_MESSAGE = 'Authorization has been denied for this request.';

export function unauthorized(developerMessage: string): AgcoError {
  return new AgcoError(401, UNAUTHORIZED_MESSAGE, developerMessage);
}

export function badRequest(userMessage: string, developerMessage?: string): AgcoError {
  return new AgcoError(400, userMessage, developerMessage);
}

export function apiError(error: AgcoError): ApiError {
  return { ErrorCode: error.status, UserMessage: error.userMessage, DeveloperMessage: error.developerMessage, MoreInfo: MORE_INFO };
}

export function sendApiError(request: FastifyRequest, reply: FastifyReply, error: AgcoError): FastifyReply {
  const type = mediaTypeOf(request);
  const body = apiError(error);
  // Bearer challenges go with every 401, as OWIN's bearer middleware sends them.
  if (error.status === 401) reply.header('www-authenticate', 'Bearer');
  return sendAs(reply, type, error.status, isXml(type) ? apiErrorXml(body) : JSON.stringify(body));
}
