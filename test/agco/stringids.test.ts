import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { error, page } from './helpers.js';

describe('agco stringIds', async () => {
  const { app, store } = await testApp();
  const ids = store.db
    .prepare('SELECT id FROM agco_definitions ORDER BY rowid DESC LIMIT 45')
    .pluck()
    .all() as string[];

  it('returns the found ids in the order given, skipping unknown ones, and ignores limit', async () => {
    const wanted = [ids[3]!, 'No.Such.String', ids[0]!, ids[7]!];
    const body = await page(app, { stringIds: wanted.join(','), limit: 1 });
    expect(body.Entities.map((d) => d.Id)).toEqual([ids[3], ids[0], ids[7]]);
    expect(body.Metadata.TotalCount).toBe(3);
  });

  it('accepts exactly 40 ids and rejects 41', async () => {
    const forty = await page(app, { stringIds: ids.slice(0, 40).join(',') });
    expect(forty.Entities).toHaveLength(40);
    const err = await error(app, { stringIds: ids.slice(0, 41).join(',') });
    expect(err.UserMessage).toMatch(/stringIds/);
    expect(err.UserMessage).toMatch(/40/);
  });

  it('matches ids case-insensitively, as SQL Server does, and tolerates spaces and duplicates', async () => {
    const body = await page(app, { stringIds: ` ${ids[1]!.toUpperCase()} , ${ids[1]}` });
    expect(body.Entities.map((d) => d.Id)).toEqual([ids[1]]);
  });

  it('can include translations filtered by language', async () => {
    const body = await page(app, {
      stringIds: ids.slice(0, 5).join(','),
      includeTranslations: true,
      languageIds: '1031',
    });
    expect(body.Entities).toHaveLength(5);
    for (const d of body.Entities) {
      expect(Array.isArray(d.Translations)).toBe(true);
      for (const t of d.Translations!) expect(t.LanguageId).toBe(1031);
    }
  });
});
