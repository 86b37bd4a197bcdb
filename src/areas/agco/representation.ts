// Content negotiation as ASP.NET Web API does it: JSON by default, text/json, or DataContract-style XML.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { XMLBuilder } from 'fast-xml-parser';
import type { ApiError, PagedResponse, StringDefinition } from './schemas.js';

export const MEDIA_TYPES = ['application/json', 'text/json', 'application/xml', 'text/xml'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

const WILDCARDS: Record<string, MediaType> = { '*/*': 'application/json', 'application/*': 'application/json', 'text/*': 'text/json' };

/** The best of the four formats for an Accept header (highest q first, then header order); JSON otherwise. */
export function negotiate(accept: string | undefined): MediaType {
  if (!accept) return 'application/json';
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { type, quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const r of ranges) {
    if ((MEDIA_TYPES as readonly string[]).includes(r.type)) return r.type as MediaType;
    // Own keys only: an Accept of `constructor` must not find Object.prototype's members.
    const wild = Object.hasOwn(WILDCARDS, r.type) ? WILDCARDS[r.type] : undefined;
    if (wild) return wild;
  }
  return 'application/json';
}

export const isXml = (type: MediaType) => type.endsWith('/xml');

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const API_NS = 'http://schemas.datacontract.org/2004/07/API';
const MODELS_NS = 'http://schemas.datacontract.org/2004/07/GlobalResources.Shared.Models';
const ERROR_NS = 'http://schemas.datacontract.org/2004/07/API.Models';

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: false });

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
