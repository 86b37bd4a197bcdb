// Content negotiation as ASP.NET Web API does it: JSON by default, text/json, or DataContract-style XML.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { XMLBuilder } from 'fast-xml-parser';
import Negotiator from 'negotiator';
import type { ApiError, PagedResponse, StringDefinition } from './schemas.js';

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

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const API_NS = 'http://schemas.datacontract.org/2004/07/API';
const MODELS_NS = 'http://schemas.datacontract.org/2004/07/GlobalResources.Shared.Models';
const ERROR_NS = 'http://schemas.datacontract.org/2004/07/API.Models';

/**
 * Characters XML 1.0 cannot carry at all, not even as a character reference (&#x0; is not well-formed):
 * C0 controls but tab, LF and CR, unpaired surrogates, U+FFFE and U+FFFF. .NET's XmlWriter refuses them.
 */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A text value that XML can hold: what it cannot (a NUL echoed from a filter, say) becomes U+FFFD. */
const xmlText = (_name: string, value: unknown): unknown =>
  typeof value === 'string' ? value.replace(NOT_XML, '\uFFFD') : value;

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: false,
  tagValueProcessor: xmlText,
});

// DataContractSerializer writes members in alphabetical order, with the models' namespace prefixed.
function definitionXml(d: StringDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {
    'd2p1:DescriptionForTranslator': d.DescriptionForTranslator,
    'd2p1:DoNotTranslate': d.DoNotTranslate,
    'd2p1:Id': d.Id,
    'd2p1:ParameterCount': d.ParameterCount,
    'd2p1:Timestamp': d.Timestamp,
  };
  if (d.Translations) {
    out['d2p1:Translations'] = {
      'd2p1:StringTranslation': d.Translations.map((t) => ({
        'd2p1:AuthorId': t.AuthorId,
        'd2p1:LanguageId': t.LanguageId,
        'd2p1:State': t.State,
        'd2p1:StringId': t.StringId,
        'd2p1:StringValue': t.StringValue,
        'd2p1:Timestamp': t.Timestamp,
      })),
    };
  }
  return out;
}

export function pagedResponseXml(page: PagedResponse): string {
  return builder.build({
    PagedResponseOfStringDefinition: {
      '@_xmlns:i': XSI,
      '@_xmlns': API_NS,
      Entities: { '@_xmlns:d2p1': MODELS_NS, 'd2p1:StringDefinition': page.Entities.map(definitionXml) },
      Metadata: { Limit: page.Metadata.Limit, Offset: page.Metadata.Offset, TotalCount: page.Metadata.TotalCount },
    },
  }) as string;
}

const ENTITIES_END = '</Entities>';

/**
 * The same bytes as `pagedResponseXml`, rendered some definitions at a time with a turn of the event loop
 * in between, so a page of thousands of definitions with translations does not hold up other requests.
 */
export async function pagedResponseXmlInSlices(page: PagedResponse, slice = 25): Promise<string> {
  const shell = pagedResponseXml({ ...page, Entities: [] });
  const at = shell.indexOf(ENTITIES_END);
  const parts: string[] = [shell.slice(0, at)];
  for (let i = 0; i < page.Entities.length; i += slice) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    parts.push(
      builder.build({ 'd2p1:StringDefinition': page.Entities.slice(i, i + slice).map(definitionXml) }) as string,
    );
  }
  parts.push(shell.slice(at));
  return parts.join('');
}

export function apiErrorXml(error: ApiError): string {
  return builder.build({
    ApiError: {
      '@_xmlns:i': XSI,
      '@_xmlns': ERROR_NS,
      DeveloperMessage: error.DeveloperMessage,
      ErrorCode: error.ErrorCode,
      MoreInfo: error.MoreInfo,
      UserMessage: error.UserMessage,
    },
  }) as string;
}

export const contentTypeOf = (type: MediaType): string => `${type}; charset=utf-8`;

/** Sends a body already rendered for the negotiated type, with that type as Content-Type. */
export function sendAs(reply: FastifyReply, type: MediaType, status: number, body: string): FastifyReply {
  return reply.code(status).type(contentTypeOf(type)).send(body);
}

export function mediaTypeOf(request: FastifyRequest): MediaType {
  return negotiate(request.headers.accept);
}
