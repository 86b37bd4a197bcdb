import { describe, expect, it } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import { testApp } from '../helpers/app.js';

const { app, store } = await testApp();
const auth = { authorization: 'Bearer mockyard-agco-token' };
const languages = store.db
  .prepare('SELECT locale_id AS id, description, is_deleted AS deleted FROM agco_languages ORDER BY locale_id')
  .all() as { id: number; description: string; deleted: number }[];

describe('agco languages', () => {
  it('Languages pages the live languages by LocaleId (limit 10 by default), includeDeleted adds the rest', async () => {
    const res = await app.inject({ url: '/agco/api/v2/Languages', headers: auth });
    expectContract('Languages_GetLanguages', res);
    const live = languages.filter((l) => l.deleted === 0);
    const body = res.json() as { Entities: { LocaleId: number }[]; Metadata: { TotalCount: number; Limit: number } };
    expect(body.Entities.map((l) => l.LocaleId)).toEqual(live.slice(0, 10).map((l) => l.id));
    expect(body.Metadata).toEqual({ TotalCount: live.length, Limit: 10, Offset: 0 });
    const all = await app.inject({
      url: '/agco/api/v2/Languages?includeDeleted=true&limit=100&offset=1',
      headers: auth,
    });
    expect((all.json() as { Entities: { LocaleId: number }[] }).Entities.map((l) => l.LocaleId)).toEqual(
      languages.slice(1).map((l) => l.id),
    );
    expect((await app.inject({ url: '/agco/api/v2/Languages?limit=0', headers: auth })).statusCode).toBe(400);
  });

  it('Languages/{LocaleID} is the list item; unknown is 404; no token is 401', async () => {
    const l = languages[0]!;
    const res = await app.inject({ url: `/agco/api/v2/Languages/${l.id}`, headers: auth });
    expectContract('Languages_GetLanguage', res);
    expect(res.json()).toEqual({ LocaleId: l.id, Description: l.description, IsDeleted: l.deleted === 1 });
    const missing = await app.inject({ url: '/agco/api/v2/Languages/1', headers: auth });
    expect(missing.statusCode).toBe(404);
    expectContract('Languages_GetLanguage', missing);
    expect((await app.inject({ url: `/agco/api/v2/Languages/${l.id}` })).statusCode).toBe(401);
  });
});

describe('agco StringDefinitions/{ID}', () => {
  it('is the same definition as in the paged list, with the same translation filters', async () => {
    const list = await app.inject({
      url: '/agco/api/v2/StringDefinitions?limit=3&includeTranslations=true',
      headers: auth,
    });
    for (const d of (list.json() as { Entities: { Id: string }[] }).Entities) {
      const res = await app.inject({
        url: `/agco/api/v2/StringDefinitions/${d.Id}?includeTranslations=true`,
        headers: auth,
      });
      expectContract('StringDefinitions_GetDefinition', res);
      expect(res.json()).toEqual(d);
    }
    const missing = await app.inject({ url: '/agco/api/v2/StringDefinitions/no-such-string', headers: auth });
    expect(missing.statusCode).toBe(404);
    expectContract('StringDefinitions_GetDefinition', missing);
  });
});

describe('agco Authentication', () => {
  it('signs in with Username and Password and gives a token the API accepts', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/agco/api/v2/Authentication',
      payload: { Username: 'translator', Password: 'x' },
    });
    expectContract('Authentication_Default', res);
    const { Token } = res.json() as { Token: string };
    const list = await app.inject({ url: '/agco/api/v2/Languages', headers: { authorization: `Bearer ${Token}` } });
    expect(list.statusCode).toBe(200);
    const bad = await app.inject({
      method: 'POST',
      url: '/agco/api/v2/Authentication',
      payload: { Username: 'translator' },
    });
    expect(bad.statusCode).toBe(400);
    expectContract('Authentication_Default', bad);
  });

  it('IsAlive answers 204 without a token', async () => {
    const res = await app.inject({ url: '/agco/api/v2/Authentication/IsAlive' });
    expect(res.statusCode).toBe(204);
    expectContract('Authentication_IsAlive', res);
  });
});
