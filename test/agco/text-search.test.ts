import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { call, page } from './helpers.js';

describe('agco descriptionText, stringText and useFullText', async () => {
  const { app, store } = await testApp();
  const db = store.db;
  const descriptions = db.prepare('SELECT id, description FROM agco_definitions').all() as {
    id: string;
    description: string;
  }[];
  const translations = db
    .prepare('SELECT string_id AS id, language_id AS lang, lang_deleted AS deleted, value FROM agco_translations')
    .all() as { id: string; lang: number; deleted: number; value: string }[];
  const countWhere = (pred: (text: string) => boolean) => descriptions.filter((d) => pred(d.description)).length;
  const defsWithTranslation = (pred: (t: (typeof translations)[number]) => boolean) =>
    new Set(translations.filter(pred).map((t) => t.id)).size;
  const lower = (s: string) => s.toLowerCase();

  it('descriptionText without wildcards is a whole, case-insensitive match', async () => {
    const sample = descriptions[17]!.description;
    const body = await page(app, { descriptionText: sample.toUpperCase(), limit: 100 });
    expect(body.Metadata.TotalCount).toBe(countWhere((d) => lower(d) === lower(sample)));
    for (const d of body.Entities) expect(lower(d.DescriptionForTranslator)).toBe(lower(sample));
    const partial = await page(app, { descriptionText: 'Label' });
    expect(partial.Metadata.TotalCount).toBe(0);
  });

  it.each([
    ['Label*', (d: string) => lower(d).startsWith('label')],
    ['*characters.', (d: string) => lower(d).endsWith('characters.')],
    ['*hydraulic pressure*', (d: string) => lower(d).includes('hydraulic pressure')],
  ])('descriptionText %s uses * as a wildcard', async (text, pred) => {
    const body = await page(app, { descriptionText: text, limit: 50 });
    expect(body.Metadata.TotalCount).toBe(countWhere(pred));
    expect(body.Metadata.TotalCount).toBeGreaterThan(0);
    for (const d of body.Entities) expect(pred(d.DescriptionForTranslator)).toBe(true);
  });

  it('treats %, _ and a * in the middle as literal characters', async () => {
    for (const text of ['*%*', '*_*', '*a*b*']) {
      const body = await page(app, { descriptionText: text });
      const inner = text.slice(1, -1);
      expect(body.Metadata.TotalCount).toBe(countWhere((d) => d.includes(inner)));
    }
    expect(countWhere(() => true)).toBeGreaterThan(0);
  });

  it('stringText keeps definitions with a matching translation and returns only the matching ones', async () => {
    const body = await page(app, { stringText: '*Motor*', includeTranslations: true, limit: 30 });
    expect(body.Metadata.TotalCount).toBe(defsWithTranslation((t) => !t.deleted && lower(t.value).includes('motor')));
    expect(body.Entities.length).toBeGreaterThan(0);
    for (const d of body.Entities) {
      expect(d.Translations!.length).toBeGreaterThan(0);
      for (const t of d.Translations!) expect(lower(t.StringValue)).toContain('motor');
    }
  });

  it('matchingTranslationsOnly=false returns all translations of the matched definitions', async () => {
    const body = await page(app, {
      stringText: 'Fehler*',
      includeTranslations: true,
      matchingTranslationsOnly: false,
      limit: 20,
    });
    expect(body.Metadata.TotalCount).toBe(
      defsWithTranslation((t) => !t.deleted && lower(t.value).startsWith('fehler')),
    );
    for (const d of body.Entities) {
      const all = translations.filter((t) => t.id === d.Id && !t.deleted);
      expect(d.Translations).toHaveLength(all.length);
      expect(d.Translations!.some((t) => lower(t.StringValue).startsWith('fehler'))).toBe(true);
    }
  });

  it('wildcard matching is case-insensitive beyond ASCII', async () => {
    const body = await page(app, { stringText: 'ÖLTEMPERATUR*', includeTranslations: true, limit: 50 });
    expect(body.Metadata.TotalCount).toBe(
      defsWithTranslation((t) => !t.deleted && lower(t.value).startsWith('öltemperatur')),
    );
    expect(body.Metadata.TotalCount).toBeGreaterThan(0);
  });

  it('stringText searches only the languages asked for', async () => {
    const body = await page(app, { stringText: '*Error*', includeTranslations: true, languageIds: '3082', limit: 20 });
    expect(body.Metadata.TotalCount).toBe(
      defsWithTranslation((t) => t.lang === 3082 && lower(t.value).includes('error')),
    );
    for (const d of body.Entities) for (const t of d.Translations!) expect(t.LanguageId).toBe(3082);
  });

  it('useFullText matches words in descriptions, with a trailing * as a prefix', async () => {
    const word = (w: string) => new RegExp(`(^|[^\\p{L}\\p{N}])${w}($|[^\\p{L}\\p{N}])`, 'iu');
    const alarm = await page(app, { descriptionText: 'alarm', useFullText: true, limit: 50 });
    expect(alarm.Metadata.TotalCount).toBe(countWhere((d) => word('alarm').test(d)));
    expect(alarm.Metadata.TotalCount).toBeGreaterThan(0);
    const prefix = await page(app, { descriptionText: 'calib*', useFullText: true, limit: 50 });
    expect(prefix.Metadata.TotalCount).toBe(countWhere((d) => /(^|[^\p{L}])calib/iu.test(d)));
    const both = await page(app, { descriptionText: 'tractor speed', useFullText: true, limit: 50 });
    expect(both.Metadata.TotalCount).toBe(countWhere((d) => word('tractor').test(d) && word('speed').test(d)));
  });

  it('useFullText searches translations too, ignoring diacritics', async () => {
    const body = await page(app, { stringText: 'regimen', useFullText: true, includeTranslations: true, limit: 50 });
    expect(body.Metadata.TotalCount).toBe(
      defsWithTranslation((t) => !t.deleted && /(^|\s)r[ée]gimen(\s|$)/i.test(t.value)),
    );
    expect(body.Metadata.TotalCount).toBeGreaterThan(0);
  });

  it('never answers 5xx, whatever the text (FTS syntax, quotes, LIKE characters)', async () => {
    const texts = [
      '"',
      '(',
      'a AND',
      'NEAR(',
      '*',
      '**',
      '"unterminated',
      'col:value',
      '^',
      '\\',
      '%_%',
      "'",
      '-x',
      'a OR OR b',
    ];
    for (const useFullText of [true, false]) {
      for (const text of texts) {
        const a = await call(app, { descriptionText: text, useFullText });
        expect(a.statusCode, text).toBe(200);
        const b = await call(app, { stringText: text, useFullText, includeTranslations: true });
        expect(b.statusCode, text).toBe(200);
      }
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 20 }), fc.boolean(), async (text, useFullText) => {
        const res = await call(app, {
          descriptionText: text,
          stringText: text,
          useFullText,
          includeTranslations: true,
        });
        expect(res.statusCode).toBe(200);
      }),
      { numRuns: 100 },
    );
  });
});
