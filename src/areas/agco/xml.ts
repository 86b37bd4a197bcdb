// DataContractSerializer's XML for the ATS answers (a PagedResponse of StringDefinitions, an ApiError), as
// ASP.NET Web API writes it for Accept: application/xml or text/xml.
import { XMLBuilder } from 'fast-xml-parser';
import type { ApiError, PagedResponse, StringDefinition } from './schemas.js';

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
