// AGCO's ApiError body, sent in whichever format the client negotiated.
import type { FastifyRequest } from 'fastify';
import { contentTypeOf, isXml, mediaTypeOf } from './representation.js';
import { apiErrorXml } from './xml.js';
import type { ErrorAnswer, ErrorContext } from '../../platform/area.js';
import type { ApiError } from './schemas.js';
import { HttpError } from '../../platform/http/error-types.js';

const MORE_INFO = 'https://secure.agco-ats.com/swagger/ui/index#!/StringDefinitions/StringDefinitions_GetDefinitions';

/** A client error that leaves as an ApiError with this status. */
export class AgcoError extends HttpError {
  constructor(
    readonly status: number,
    readonly userMessage: string,
    readonly developerMessage: string = userMessage,
  ) {
    super(status, userMessage);
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
  return {
    ErrorCode: error.status,
    UserMessage: error.userMessage,
    DeveloperMessage: error.developerMessage,
    MoreInfo: MORE_INFO,
  };
}

/** The ApiError for a status, in the format the client negotiated. */
export function formatApiError({ status, message, request, cause }: ErrorContext): ErrorAnswer {
  const error =
    cause instanceof AgcoError
      ? cause
      : new AgcoError(
          status,
          message ?? naturalMessage(status, request),
          message ?? naturalDeveloperMessage(status, request),
        );
  const type = mediaTypeOf(request);
  const body = apiError(error);
  return {
    contentType: contentTypeOf(type),
    body: isXml(type) ? apiErrorXml(body) : JSON.stringify(body),
    // Bearer challenges go with every 401, as OWIN's bearer middleware sends them.
    ...(status === 401 ? { headers: { 'www-authenticate': 'Bearer' } } : {}),
  };
}

function naturalMessage(status: number, request: FastifyRequest): string {
  if (status === 401) return UNAUTHORIZED_MESSAGE;
  if (status === 404) return `No HTTP resource was found that matches the request URI '${request.url.split('?')[0]}'.`;
  if (status >= 500) return 'An error has occurred.';
  return 'The request is invalid.';
}

function naturalDeveloperMessage(status: number, request: FastifyRequest): string {
  if (status === 404) return `No route ${request.method} ${request.url.split('?')[0]}.`;
  return naturalMessage(status, request);
}

/** A search over mockyard's work budget (--query-timeout): a 400 the client can act on by narrowing it. */
export function searchTooLong(budgetMs: number): AgcoError {
  return badRequest(
    'The search took too long. Narrow stringText or descriptionText, or pass languageIds.',
    `The query ran longer than the server's budget of ${budgetMs} ms and was stopped.`,
  );
}

/** Every query worker stayed busy for the whole budget: a 503 to retry. */
export function searchBusy(reason: string): AgcoError {
  return new AgcoError(503, 'The service is busy. Try again.', `${reason[0]!.toUpperCase()}${reason.slice(1)}.`);
}
