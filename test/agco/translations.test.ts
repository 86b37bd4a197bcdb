import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { page, tsText } from './helpers.js';

describe('agco includeTranslations, languageIds and includeDeletedLanguages', async () => {
  const { app, store } = await testApp();
  const db = store.db;
  const deleted = new Set(
    db.prepare('SELECT locale_id FROM agco_languages WHERE is_deleted = 1').pluck().all() as number[],
  );
  const translationsOf = db.prepare(
    'SELECT language_id, value, state, author_id, ts FROM agco_translations WHERE string_id = ? ORDER BY language_id',
  );
  type Row = { language_id: number; value: string; state: string; author_id: number; ts: number };

  it('leaves Translations out by default', async () => {
    const body = await page(app, { limit: 5 });
    for (const d of body.Entities) expect(d).not.toHaveProperty('Translations');
  });

  it('includes every translation in a non-deleted language, as stored, ordered by LanguageId', async () => {
    const body = await page(app, { limit: 30, includeTranslations: true });
    for (const d of body.Entities) {
      const expected = (translationsOf.all(d.Id) as Row[])
        .filter((r) => !deleted.has(r.language_id))
        .map((r) => ({
          AuthorId: r.author_id,
          LanguageId: r.language_id,
          State: r.state,
          StringId: d.Id,
          StringValue: r.value,
          Timestamp: tsText(r.ts),
        }));
      expect(d.Translations).toEqual(expected);
    }
  });

  it('includeDeletedLanguages=true adds the translations in deleted languages', async () => {
    const body = await page(app, { limit: 30, includeTranslations: true, includeDeletedLanguages: true });
    let sawDeleted = false;
    for (const d of body.Entities) {
      const expected = (translationsOf.all(d.Id) as Row[]).map((r) => r.language_id);
      expect(d.Translations!.map((t) => t.LanguageId)).toEqual(expected);
      sawDeleted ||= d.Translations!.some((t) => deleted.has(t.LanguageId));
    }
    expect(sawDeleted).toBe(true);
  });

  it('languageIds keeps only those languages, and still returns definitions left with none', async () => {
    const plain = await page(app, { limit: 40 });
    const body = await page(app, { limit: 40, includeTranslations: true, languageIds: '1031,1041' });
    expect(body.Entities.map((d) => d.Id)).toEqual(plain.Entities.map((d) => d.Id));
    expect(body.Metadata.TotalCount).toBe(plain.Metadata.TotalCount);
    for (const d of body.Entities) {
      const expected = (translationsOf.all(d.Id) as Row[])
        .filter((r) => r.language_id === 1031 || r.language_id === 1041)
        .map((r) => r.language_id);
      expect(d.Translations!.map((t) => t.LanguageId)).toEqual(expected);
    }
    // Do-not-translate strings exist only in English, so asking for German leaves them an empty list.
    const dnt = db
      .prepare('SELECT id FROM agco_definitions WHERE do_not_translate = 1 LIMIT 1')
      .pluck()
      .get() as string;
    const one = await page(app, { stringIds: dnt, includeTranslations: true, languageIds: '1031' });
    expect(one.Entities).toHaveLength(1);
    expect(one.Entities[0]!.Translations).toEqual([]);
  });

  it('a deleted language in languageIds only shows with includeDeletedLanguages=true', async () => {
    const gone = [...deleted][0]!;
    const hidden = await page(app, { limit: 20, includeTranslations: true, languageIds: String(gone) });
    for (const d of hidden.Entities) expect(d.Translations).toEqual([]);
    const shown = await page(app, {
      limit: 20,
      includeTranslations: true,
      languageIds: String(gone),
      includeDeletedLanguages: true,
    });
    expect(shown.Entities.some((d) => d.Translations!.length > 0)).toBe(true);
    for (const d of shown.Entities) for (const t of d.Translations!) expect(t.LanguageId).toBe(gone);
  });
});
