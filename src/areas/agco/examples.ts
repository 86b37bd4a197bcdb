// Requests that work with this store's tokens and definitions: the dashboard offers them to copy.
import type { AreaDocs, AreaExample } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { firstStringIds, listLanguages } from './queries.js';

export function agcoExamples(store: FixtureStore, token: string): AreaExample[] {
  const headers = { Authorization: `Bearer ${token}` };
  const language = listLanguages(store).find((l) => !l.deleted);
  const [id] = firstStringIds(store, 1);
  const out: AreaExample[] = [
    { title: 'The first ten string definitions', method: 'GET', path: '/api/v2/StringDefinitions', headers },
  ];
  if (language) {
    out.push({
      title: `Definitions with their ${language.id} translations`,
      method: 'GET',
      path: `/api/v2/StringDefinitions?includeTranslations=true&languageIds=${language.id}&limit=5`,
      headers,
    });
  }
  if (id) {
    out.push({
      title: `Definition ${id}`,
      method: 'GET',
      path: `/api/v2/StringDefinitions?stringIds=${encodeURIComponent(id)}&includeTranslations=true`,
      headers,
    });
  }
  return out;
}

/** What /docs prefills: a token that works, a live language and a string id from the fixtures. */
export function agcoDocs(store: FixtureStore, token: string): AreaDocs {
  const language = listLanguages(store).find((l) => !l.deleted);
  const [id = ''] = firstStringIds(store, 1);
  const languageIds = language ? String(language.id) : undefined;
  return {
    operations: {
      StringDefinitions_GetDefinitions: { parameters: { limit: 10, languageIds, includeTranslations: true } },
      StringDefinitions_GetDefinition: { parameters: { ID: id, languageIds, includeTranslations: true } },
      Languages_GetLanguages: { parameters: { limit: 10, offset: 0 } },
      Languages_GetLanguage: { parameters: { LocaleID: languageIds } },
      Authentication_Default: { body: { Username: 'translator', Password: 'mockyard' } },
    },
    credentials: { agcoBearer: token },
  };
}
