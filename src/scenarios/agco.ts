// A scenario's AGCO part as the records the AGCO loader takes: timestamps parsed or assigned in order.
import type { AgcoRecords, DefinitionRecord, LanguageRecord, TranslationRecord } from '../../fixtures/agco/load.js';
import { timestampFromBase64 } from '../../fixtures/agco/timestamp.js';
import { ScenarioError, pointer } from './errors.js';
import type { ScenarioBody } from './schema.js';

type Body = NonNullable<ScenarioBody['agco']>;

/** Assigned row versions start above this, like the generated data's. */
const FIRST_ROW_VERSION = 2000;

const AT = '/agco';

/**
 * Row versions for every definition and translation, in body order: explicit ones parsed first (an assigned
 * one must never take a value the body names later), the rest assigned above the highest so far.
 */
function rowVersions(definitionsIn: NonNullable<Body['definitions']>) {
  const explicit = new Map<bigint, string>();
  const parse = (text: string, where: string): number => {
    const value = timestampFromBase64(text);
    if (value === null)
      throw new ScenarioError(where, `"${text}" is not base64 of an 8-byte row version (e.g. AAAAAAAAB9E=)`);
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new ScenarioError(where, 'row versions above 2^53 are not supported');
    if (explicit.has(value))
      throw new ScenarioError(
        where,
        `Timestamp ${text} is also used at ${explicit.get(value)}; row versions are unique`,
      );
    explicit.set(value, where);
    return Number(value);
  };
  const given = definitionsIn.map((d, i) => ({
    ts: d.Timestamp === undefined ? null : parse(d.Timestamp, pointer(AT, 'definitions', i, 'Timestamp')),
    translations: (d.Translations ?? []).map((t, j) =>
      t.Timestamp === undefined
        ? null
        : parse(t.Timestamp, pointer(AT, 'definitions', i, 'Translations', j, 'Timestamp')),
    ),
  }));
  let last = FIRST_ROW_VERSION;
  const next = (value: number | null): number => {
    let ts = value;
    if (ts === null) {
      ts = last + 1;
      while (explicit.has(BigInt(ts))) ts++;
    }
    last = Math.max(last, ts);
    return ts;
  };
  return { given, next };
}

/** The languages listed, each once; `known` also takes the languages translations name later. */
function languageRecords(body: Body): { languages: LanguageRecord[]; known: Set<number> } {
  const languages: LanguageRecord[] = [];
  const known = new Set<number>();
  (body.languages ?? []).forEach((l, i) => {
    if (known.has(l.LocaleId))
      throw new ScenarioError(pointer(AT, 'languages', i, 'LocaleId'), `language ${l.LocaleId} is listed twice`);
    known.add(l.LocaleId);
    languages.push({ LocaleId: l.LocaleId, Description: l.Description ?? '', IsDeleted: l.IsDeleted === true });
  });
  return { languages, known };
}

export function agcoRecords(body: Body): { records: AgcoRecords; counts: Record<string, number> } {
  const definitionsIn = body.definitions ?? [];
  const { given, next } = rowVersions(definitionsIn);
  const { languages, known } = languageRecords(body);
  const ids = new Map<string, number>();
  const definitions: DefinitionRecord[] = [];
  const translations: TranslationRecord[] = [];
  definitionsIn.forEach((d, i) => {
    const key = d.Id.toLowerCase();
    if (ids.has(key))
      throw new ScenarioError(
        pointer(AT, 'definitions', i, 'Id'),
        `Id "${d.Id}" is also used by definition ${ids.get(key)} (ids are case-insensitive)`,
      );
    ids.set(key, i);
    definitions.push({
      id: d.Id,
      description: d.DescriptionForTranslator ?? '',
      doNotTranslate: d.DoNotTranslate === true,
      parameterCount: d.ParameterCount ?? 0,
      ts: next(given[i]!.ts),
    });
    const seen = new Set<number>();
    (d.Translations ?? []).forEach((t, j) => {
      if (seen.has(t.LanguageId)) {
        throw new ScenarioError(
          pointer(AT, 'definitions', i, 'Translations', j, 'LanguageId'),
          `definition "${d.Id}" has two translations in language ${t.LanguageId}`,
        );
      }
      seen.add(t.LanguageId);
      if (!known.has(t.LanguageId)) {
        known.add(t.LanguageId);
        languages.push({ LocaleId: t.LanguageId, Description: '', IsDeleted: false });
      }
      translations.push({
        definition: i,
        languageId: t.LanguageId,
        value: t.StringValue,
        state: t.State ?? 'Validated',
        authorId: t.AuthorId ?? 1,
        ts: next(given[i]!.translations[j]!),
      });
    });
  });
  return {
    records: { languages, definitions, translations },
    counts: { languages: languages.length, definitions: definitions.length, translations: translations.length },
  };
}
