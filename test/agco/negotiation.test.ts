import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { negotiate } from '../../src/areas/agco/representation.js';
import { pagedResponseXml } from '../../src/areas/agco/xml.js';
import type { PagedResponse } from '../../src/areas/agco/schemas.js';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { AUTH, OP, PATH, call, page, type Page } from './helpers.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => ['StringDefinition', 'StringTranslation'].includes(name),
});

interface XmlDefinition {
  Id: string;
  DescriptionForTranslator: string;
  DoNotTranslate: string;
  ParameterCount: string;
  Timestamp: string;
  Translations?: { StringTranslation?: Record<string, string>[] } | '';
}

describe('agco content negotiation', async () => {
  const { app } = await testApp();
  const params = { limit: 7, includeTranslations: true, descriptionText: '*speed*' };

  it.each(['application/xml', 'text/xml'])('Accept: %s answers the same page as XML', async (accept) => {
    const json = await page(app, params);
    const res = await call(app, params, { ...AUTH, accept });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(`${accept}; charset=utf-8`);
    const doc = parser.parse(res.body) as {
      PagedResponseOfStringDefinition: {
        Entities: { StringDefinition?: XmlDefinition[] };
        Metadata: Record<string, string>;
      };
    };
    const root = doc.PagedResponseOfStringDefinition;
    expect(root.Metadata).toEqual({
      Limit: String(json.Metadata.Limit),
      Offset: '0',
      TotalCount: String(json.Metadata.TotalCount),
    });
    const defs = root.Entities.StringDefinition ?? [];
    expect(defs.map((d) => d.Id)).toEqual(json.Entities.map((d) => d.Id));
    defs.forEach((d, i) => {
      const j = json.Entities[i]!;
      expect([d.DescriptionForTranslator, d.DoNotTranslate, d.ParameterCount, d.Timestamp]).toEqual([
        j.DescriptionForTranslator,
        String(j.DoNotTranslate),
        String(j.ParameterCount),
        j.Timestamp,
      ]);
      const xmlTranslations = typeof d.Translations === 'object' ? (d.Translations.StringTranslation ?? []) : [];
      expect(xmlTranslations.map((t) => [t.LanguageId, t.StringValue, t.State, t.Timestamp])).toEqual(
        j.Translations!.map((t) => [String(t.LanguageId), t.StringValue, t.State, t.Timestamp]),
      );
    });
  });

  it('XML carries exactly the JSON page, translations filtered the same way, for every kind of filter', async () => {
    const ids = (await page(app, { limit: 6 })).Entities.map((d) => d.Id);
    const filters: Record<string, string | number | boolean>[] = [
      { limit: 3 },
      { limit: 20, includeTranslations: true, includeDeletedLanguages: true },
      { limit: 15, includeTranslations: true, languageIds: '1033,1036' },
      {
        limit: 10,
        includeTranslations: true,
        stringText: '*e*',
        matchingTranslationsOnly: true,
        languageIds: '1033,1031',
      },
      { limit: 10, includeTranslations: true, stringText: '*e*', matchingTranslationsOnly: false },
      { includeTranslations: true, stringIds: [...ids].reverse().join(',') },
      { descriptionText: 'no such description at all' },
    ];
    for (const filter of filters) {
      const json = await page(app, filter);
      const xml = await call(app, filter, { ...AUTH, accept: 'application/xml' });
      expect(xml.body, JSON.stringify(filter)).toBe(pagedResponseXml(json as PagedResponse));
    }
  });

  it('text/json answers JSON with that content type', async () => {
    const res = await call(app, { limit: 3 }, { ...AUTH, accept: 'text/json' });
    expect(res.headers['content-type']).toBe('text/json; charset=utf-8');
    const body = res.json() as Page;
    expect(body.Entities).toHaveLength(3);
  });

  it('JSON for no Accept, */* and unsupported types', async () => {
    for (const accept of [undefined, '*/*', 'text/html', 'application/json']) {
      const res = await call(app, { limit: 1 }, accept ? { ...AUTH, accept } : AUTH);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('honours q-values', () => {
    expect(negotiate('application/json;q=0.5, text/xml')).toBe('text/xml');
    expect(negotiate('application/xml;q=0.9, text/json;q=0.95')).toBe('text/json');
    expect(negotiate('text/html, application/xml;q=0.1')).toBe('application/xml');
    expect(negotiate('application/xml;q=0')).toBe('application/json');
  });

  it('prefers the more specific range at equal q, and maps wildcards to the first format they cover', () => {
    expect(negotiate('*/*, text/xml')).toBe('text/xml');
    expect(negotiate('application/*;q=0.5, text/*')).toBe('text/json');
    expect(negotiate('application/*')).toBe('application/json');
    expect(negotiate('TEXT/XML')).toBe('text/xml');
    expect(negotiate('text/xml;q=abc, constructor')).toBe('application/json');
  });

  it('errors follow the same negotiation (400 and 401 as XML)', async () => {
    const bad = await call(app, { limit: 0 }, { ...AUTH, accept: 'text/xml' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toBe('text/xml; charset=utf-8');
    const err = (parser.parse(bad.body) as { ApiError: Record<string, string> }).ApiError;
    expect(err.ErrorCode).toBe('400');
    expect(err.UserMessage).toMatch(/limit/);
    const unauth = await call(app, { limit: 1 }, { accept: 'application/xml' });
    expect(unauth.statusCode).toBe(401);
    expect(unauth.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect((parser.parse(unauth.body) as { ApiError: Record<string, string> }).ApiError.ErrorCode).toBe('401');
    const json = await call(app, { limit: 1 }, { accept: 'text/json' });
    expect(json.headers['content-type']).toBe('text/json; charset=utf-8');
  });

  it('escapes XML special characters in text', async () => {
    const res = await call(app, { descriptionText: '<&>"\'' }, { ...AUTH, accept: 'text/xml' });
    expect(res.statusCode).toBe(200);
    expect(() => parser.parse(res.body)).not.toThrow();
    const err = await call(app, { limit: '<&>' }, { ...AUTH, accept: 'text/xml' });
    const parsed = parser.parse(err.body) as { ApiError: Record<string, string> };
    expect(err.body).toContain('&lt;&amp;&gt;');
    expect(parsed.ApiError.UserMessage).toContain('"<&>"');
  });

  it('documents the operation with its real parameter names in /openapi.json', async () => {
    const res = await app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = (
      res.json() as {
        paths: Record<string, { get?: { operationId: string; parameters: { name: string; in: string }[] } }>;
      }
    ).paths;
    // The document may list the path with or without the /agco server prefix.
    const op = Object.entries(paths).find(([p]) => p.endsWith('/api/v2/StringDefinitions'))![1].get!;
    expect(op.operationId).toBe(OP);
    expect(
      op.parameters
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual([
      'descriptionText',
      'includeDeletedLanguages',
      'includeTranslations',
      'languageIds',
      'limit',
      'matchingTranslationsOnly',
      'modifiedAfterTimestamp',
      'stringIds',
      'stringText',
      'useFullText',
    ]);
  });

  it('unknown paths under /agco answer a 404 ApiError', async () => {
    const res = await app.inject({ url: '/agco/api/v2/Nope', headers: AUTH });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ErrorCode: 404 });
  });
});

describe('agco forced responses', async () => {
  const { app: real } = await testApp();
  const force = (status: number, accept?: string) =>
    real.inject({
      url: `${PATH}?limit=1`,
      headers: { ...AUTH, prefer: `code=${status}`, ...(accept ? { accept } : {}) },
    });

  it('can force exactly the statuses the operation documents, 400 and 401', async () => {
    const res = await force(418);
    expect(res.headers['mockyard-error']).toContain('the statuses it can be forced to are: 400, 401');
  });

  it.each([400, 401])('forced %i matches the natural error: body shape, headers and content type', async (status) => {
    const natural =
      status === 401
        ? await real.inject({ url: `${PATH}?limit=1` })
        : await real.inject({ url: `${PATH}?limit=0`, headers: AUTH });
    for (const accept of ['application/json', 'text/xml']) {
      const forced = await force(status, accept);
      expectContract(OP, forced);
      expect(forced.statusCode).toBe(status);
      expect(forced.headers['content-type']).toBe(`${accept}; charset=utf-8`);
      expect(forced.headers['www-authenticate']).toBe(natural.headers['www-authenticate']);
      if (accept === 'application/json') {
        expect(Object.keys(forced.json() as object)).toEqual(Object.keys(natural.json() as object));
        expect((forced.json() as { ErrorCode: number }).ErrorCode).toBe(status);
      }
    }
    if (status === 401)
      expect((await force(401)).json()).toMatchObject({
        UserMessage: (natural.json() as { UserMessage: string }).UserMessage,
      });
  });
});

describe('agco catalog', async () => {
  const { app, store } = await testApp();

  it('lists example tokens, every language with its deleted flag, and string ids that resolve', async () => {
    const res = await app.inject({ url: '/__mockyard/fixtures' });
    const agco = (
      res.json() as { agco: { tokens: string[]; languages: { id: number; deleted: boolean }[]; stringIds: string[] } }
    ).agco;
    expect(agco.tokens.length).toBeGreaterThan(0);
    const langs = store.db
      .prepare('SELECT locale_id AS id, is_deleted = 1 AS deleted FROM agco_languages ORDER BY locale_id')
      .all() as { id: number; deleted: number }[];
    expect(agco.languages).toEqual(langs.map((l) => ({ id: l.id, deleted: l.deleted === 1 })));
    expect(agco.stringIds.length).toBeGreaterThan(0);
    expect(agco.stringIds.length).toBeLessThanOrEqual(50);
    const body = await page(app, { stringIds: agco.stringIds.slice(0, 40).join(',') });
    expect(body.Entities.map((d) => d.Id)).toEqual(agco.stringIds.slice(0, 40));
    for (const token of agco.tokens) {
      expect((await call(app, { limit: 1 }, { authorization: `Bearer ${token}` })).statusCode).toBe(200);
    }
  });
});
