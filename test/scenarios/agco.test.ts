// AGCO on scenario data: deleted languages, languageIds, matchingTranslationsOnly, modifiedAfterTimestamp, tokens.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { OP, PATH, qs, type Page } from '../agco/helpers.js';
import { expectContract } from '../helpers/contract.js';
import { inScenario, longPageDefinitions, putScenario } from './helpers.js';

const { app } = await testApp();

const ts = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b.toString('base64');
};

await putScenario(app, 'deleted-language', {
  agco: {
    tokens: ['scenario-token'],
    languages: [
      { LocaleId: 1033, Description: 'English', IsDeleted: false },
      { LocaleId: 1031, Description: 'German', IsDeleted: false },
      { LocaleId: 1035, Description: 'Finnish', IsDeleted: true },
    ],
    definitions: [
      {
        Id: 'Dash.Speed',
        DescriptionForTranslator: 'Speed label',
        Translations: [
          { LanguageId: 1033, StringValue: 'Speed', State: 'Original' },
          { LanguageId: 1031, StringValue: 'Geschwindigkeit' },
        ],
      },
      // Its only translation is in a deleted language.
      {
        Id: 'Dash.Orphan',
        DescriptionForTranslator: 'Only Finnish',
        Translations: [{ LanguageId: 1035, StringValue: 'Nopeus orpo' }],
      },
      {
        Id: 'Dash.Fixed',
        DescriptionForTranslator: 'Given timestamp',
        Timestamp: ts(9000),
        Translations: [{ LanguageId: 1033, StringValue: 'Speed limit', Timestamp: ts(9001) }],
      },
    ],
  },
});

async function get(params: Record<string, string | number | boolean>, token = 'scenario-token') {
  const res = await app.inject({
    url: `${PATH}${qs(params)}`,
    headers: inScenario('deleted-language', { authorization: `Bearer ${token}` }),
  });
  expectContract(OP, res);
  return res;
}
const page = async (params: Record<string, string | number | boolean>) => (await get(params)).json() as Page;

describe('AGCO in a scenario', () => {
  it('lists exactly the definitions given, in Timestamp order, with timestamps assigned in order when missing', async () => {
    const p = await page({ includeTranslations: true });
    expect(p.Entities.map((d) => d.Id)).toEqual(['Dash.Speed', 'Dash.Orphan', 'Dash.Fixed']);
    expect(p.Metadata.TotalCount).toBe(3);
    const stamps = p.Entities.map((d) => Buffer.from(d.Timestamp, 'base64').readBigUInt64BE(0));
    expect(stamps[0]! < stamps[1]! && stamps[1]! < stamps[2]!).toBe(true);
    expect(p.Entities[2]!.Timestamp).toBe(ts(9000));
    expect(p.Entities[2]!.Translations![0]!.Timestamp).toBe(ts(9001));
    expect(p.Entities[0]!.Translations!.map((t) => [t.LanguageId, t.StringValue, t.StringId])).toEqual([
      [1031, 'Geschwindigkeit', 'Dash.Speed'],
      [1033, 'Speed', 'Dash.Speed'],
    ]);
  });

  it('hides deleted languages unless includeDeletedLanguages=true', async () => {
    expect((await page({ includeTranslations: true })).Entities[1]!.Translations).toEqual([]);
    const withDeleted = await page({ includeTranslations: true, includeDeletedLanguages: true });
    expect(withDeleted.Entities[1]!.Translations!.map((t) => t.StringValue)).toEqual(['Nopeus orpo']);
    // stringText searches only the languages shown: the orphan's only match is in a deleted language.
    expect((await page({ includeTranslations: true, stringText: 'Nopeus*' })).Entities).toEqual([]);
    expect(
      (await page({ includeTranslations: true, stringText: 'Nopeus*', includeDeletedLanguages: true })).Entities.map(
        (d) => d.Id,
      ),
    ).toEqual(['Dash.Orphan']);
  });

  it('languageIds keeps only those translations', async () => {
    const p = await page({ includeTranslations: true, languageIds: '1031' });
    expect(p.Entities.map((d) => d.Translations!.map((t) => t.LanguageId))).toEqual([[1031], [], []]);
  });

  it('matchingTranslationsOnly decides whether the other translations come along', async () => {
    const only = await page({ includeTranslations: true, stringText: 'Geschw*' });
    expect(only.Entities.map((d) => [d.Id, d.Translations!.map((t) => t.LanguageId)])).toEqual([
      ['Dash.Speed', [1031]],
    ]);
    const all = await page({ includeTranslations: true, stringText: 'Geschw*', matchingTranslationsOnly: false });
    expect(all.Entities.map((d) => [d.Id, d.Translations!.map((t) => t.LanguageId)])).toEqual([
      ['Dash.Speed', [1031, 1033]],
    ]);
  });

  it('modifiedAfterTimestamp pages on from a given Timestamp', async () => {
    const first = await page({ limit: 1 });
    expect(first.Entities.map((d) => d.Id)).toEqual(['Dash.Speed']);
    expect(first.Metadata.TotalCount).toBe(3);
    const rest = await page({ modifiedAfterTimestamp: first.Entities[0]!.Timestamp, limit: 10 });
    expect(rest.Entities.map((d) => d.Id)).toEqual(['Dash.Orphan', 'Dash.Fixed']);
    expect((await page({ modifiedAfterTimestamp: ts(9000) })).Entities).toEqual([]);
  });

  it("accepts only the scenario's tokens when it lists some, and the generated data stays apart", async () => {
    expect((await get({}, 'other-token')).statusCode).toBe(401);
    const generated = await app.inject({ url: `${PATH}?limit=1`, headers: { authorization: 'Bearer other-token' } });
    expectContract(OP, generated);
    expect(generated.json().Metadata.TotalCount).toBeGreaterThan(1000);
  });

  it('answers a page longer than the executor sends in one message whole, in order, with its length', async () => {
    // About 3 MB as JSON: the query process sends it in slices of SLICE_BYTES (1 MiB).
    const definitions = longPageDefinitions();
    await putScenario(app, 'long-page', { agco: { definitions } });
    for (const accept of ['application/json', 'application/xml']) {
      const res = await app.inject({
        url: `${PATH}${qs({ limit: 6000, includeTranslations: true })}`,
        headers: inScenario('long-page', { authorization: 'Bearer mockyard-agco-token', accept }),
      });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.length).toBeGreaterThan(2 * 1024 * 1024);
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      if (accept === 'application/json') {
        expectContract(OP, res);
        const body = res.json() as Page;
        expect(body.Entities.map((e) => e.Id)).toEqual(definitions.map((d) => d.Id));
        expect(body.Entities.at(-1)!.Translations![0]!.StringValue).toBe(
          definitions.at(-1)!.Translations[0]!.StringValue,
        );
      } else {
        const xml = res.body;
        expect(xml.startsWith('<PagedResponseOfStringDefinition')).toBe(true);
        expect(xml.trimEnd().endsWith('</PagedResponseOfStringDefinition>')).toBe(true);
        expect(xml.match(/<d2p1:Id>Long\.\d{5}<\/d2p1:Id>/g)).toHaveLength(6000);
      }
    }
  });
});
