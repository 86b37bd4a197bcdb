// ASP.NET Web API routing and query binding: names ignore letter case, and a repeated scalar takes its first
// value (Web API's ValueProviderResult converts a string[] to a scalar by taking element 0).
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { AUTH, OP, page, type Page } from './helpers.js';

const { app } = await testApp();

async function raw(url: string): Promise<Page> {
  const res = await app.inject({ url, headers: AUTH });
  expectContract(OP, res);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
}

describe('AGCO routes and parameters as ASP.NET binds them', () => {
  it('routes /api/v2/stringdefinitions in any letter case to the same operation', async () => {
    const expected = await page(app, { limit: 2 });
    for (const path of [
      '/agco/api/v2/stringdefinitions',
      '/agco/API/V2/STRINGDEFINITIONS',
      '/agco/Api/v2/StringDefinitions/',
    ]) {
      expect(await raw(`${path}?limit=2`)).toEqual(expected);
    }
  });
  it('binds parameter names in any letter case: LIMIT=1, includetranslations=true', async () => {
    expect((await raw('/agco/api/v2/StringDefinitions?LIMIT=1')).Metadata.Limit).toBe(1);
    const withTranslations = await raw('/agco/api/v2/StringDefinitions?limit=3&includetranslations=true');
    expect(withTranslations).toEqual(await page(app, { limit: 3, includeTranslations: true }));
    expect(withTranslations.Entities.some((e) => (e.Translations ?? []).length > 0)).toBe(true);
  });
  it('takes the first value of a repeated scalar, whatever the case of the repeats', async () => {
    expect((await raw('/agco/api/v2/StringDefinitions?limit=1&limit=3')).Entities).toHaveLength(1);
    expect((await raw('/agco/api/v2/StringDefinitions?Limit=2&limit=5&LIMIT=7')).Metadata.Limit).toBe(2);
  });
  it('still refuses a first value that breaks a rule', async () => {
    const res = await app.inject({ url: '/agco/api/v2/StringDefinitions?limit=0&limit=3', headers: AUTH });
    expectContract(OP, res);
    expect(res.statusCode).toBe(400);
  });
});
