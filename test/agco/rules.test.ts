import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { error, page } from './helpers.js';

describe('agco parameter rules answer 400 ApiError naming the rule', async () => {
  const { app, store } = await testApp();
  const ids = store.db.prepare('SELECT id FROM agco_definitions LIMIT 41').pluck().all() as string[];

  it.each<[string, Record<string, string | number | boolean>, RegExp]>([
    ['more than 40 stringIds', { stringIds: ids.join(',') }, /stringIds.*at most 40/],
    [
      'stringIds with modifiedAfterTimestamp',
      { stringIds: ids[0]!, modifiedAfterTimestamp: 'AAAAAAAAB9E=' },
      /stringIds cannot be combined.*\(got modifiedAfterTimestamp\)/,
    ],
    [
      'stringIds with stringText',
      { stringIds: ids[0]!, stringText: 'x', includeTranslations: true },
      /stringIds cannot be combined.*\(got stringText\)/,
    ],
    [
      'stringIds with descriptionText',
      { stringIds: ids[0]!, descriptionText: 'x' },
      /stringIds cannot be combined.*\(got descriptionText\)/,
    ],
    [
      'stringIds with useFullText',
      { stringIds: ids[0]!, useFullText: true },
      /stringIds cannot be combined.*\(got useFullText\)/,
    ],
    [
      'includeDeletedLanguages without includeTranslations',
      { includeDeletedLanguages: true },
      /includeDeletedLanguages requires includeTranslations=true/,
    ],
    [
      'languageIds without includeTranslations',
      { languageIds: '1031', includeTranslations: false },
      /languageIds requires includeTranslations=true/,
    ],
    [
      'stringText without includeTranslations',
      { stringText: 'Motor*' },
      /stringText requires includeTranslations=true/,
    ],
    [
      'matchingTranslationsOnly without stringText',
      { matchingTranslationsOnly: false, includeTranslations: true },
      /matchingTranslationsOnly must be used together with stringText and includeTranslations=true/,
    ],
    [
      'timestamp that is not base64',
      { modifiedAfterTimestamp: 'not base64!' },
      /modifiedAfterTimestamp.*base64.*8-byte/,
    ],
    ['timestamp of 4 bytes', { modifiedAfterTimestamp: 'AAAH0Q==' }, /modifiedAfterTimestamp.*base64.*8-byte/],
    ['timestamp of 9 bytes', { modifiedAfterTimestamp: 'AAAAAAAAAAfR' }, /modifiedAfterTimestamp.*base64.*8-byte/],
    ['limit 0', { limit: 0 }, /limit must be a whole number of at least 1/],
    ['negative limit', { limit: -5 }, /limit must be a whole number of at least 1/],
    ['non-numeric limit', { limit: 'ten' }, /limit must be a whole number of at least 1/],
    ['fractional limit', { limit: '2.5' }, /limit must be a whole number of at least 1/],
    ['a boolean that is not true/false', { includeTranslations: 'yes' }, /not valid for includeTranslations/],
    [
      'languageIds that are not numbers',
      { languageIds: '1031,de-DE', includeTranslations: true },
      /languageIds must be a comma-delimited list/,
    ],
  ])('%s', async (_name, params, message) => {
    const body = await error(app, params);
    expect(body.ErrorCode).toBe(400);
    expect(body.UserMessage).toMatch(message);
    expect(body.MoreInfo).toMatch(/^https:\/\//);
  });

  it('allows parameters sent with their default values, as generated clients do', async () => {
    const body = await page(app, {
      stringIds: ids.slice(0, 3).join(','),
      useFullText: false,
      includeDeletedLanguages: false,
      matchingTranslationsOnly: true,
      includeTranslations: 'False',
      descriptionText: '',
      stringText: '',
      modifiedAfterTimestamp: '',
    });
    expect(body.Entities).toHaveLength(3);
  });

  it('accepts .NET-style True/False and ignores unknown parameters', async () => {
    const body = await page(app, { includeTranslations: 'True', limit: 2, offset: 5, foo: 'bar' });
    expect(body.Entities).toHaveLength(2);
    expect(body.Entities[0]!.Translations).toBeDefined();
  });

  it('a timestamp whose + was sent unencoded (as a space) still works', async () => {
    const ts = store.db
      .prepare("SELECT ts_b64 FROM agco_definitions WHERE ts_b64 LIKE '%+%' LIMIT 1")
      .pluck()
      .get() as string;
    const res = await app.inject({
      url: `/agco/api/v2/StringDefinitions?modifiedAfterTimestamp=${ts}&limit=1`,
      headers: { authorization: 'Bearer t' },
    });
    expect(res.statusCode).toBe(200);
    const after = Buffer.from(ts, 'base64').readBigUInt64BE(0);
    const ent = (res.json() as { Entities: { Timestamp: string }[] }).Entities[0]!;
    expect(Buffer.from(ent.Timestamp, 'base64').readBigUInt64BE(0) > after).toBe(true);
  });
});
