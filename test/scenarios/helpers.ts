// Creating scenarios through the admin API of a test app.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** PUT /__mockyard/scenarios/{name}; fails the test unless it answers 200 or 201. */
export async function putScenario(
  app: FastifyInstance,
  name: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await app.inject({ method: 'PUT', url: `/__mockyard/scenarios/${name}`, payload: body as object });
  expect([200, 201], res.body).toContain(res.statusCode);
  return { status: res.statusCode, json: res.json() };
}

export const inScenario = (name: string, headers: Record<string, string> = {}) => ({
  ...headers,
  'mockyard-scenario': name,
});

/**
 * A body that builds for seconds within the scenario limits: 500 DKAN resources (the most a scenario has) of
 * 3,000 rows each, about 15 MB of JSON.
 */
export const longBuildBody = (): string =>
  JSON.stringify({
    dkan: {
      datasets: Array.from({ length: 500 }, (_, i) => ({
        id: `d${i}`,
        resources: [{ columns: ['a', 'b'], rows: Array.from({ length: 3000 }, (_, k) => [k, i]) }],
      })),
    },
  });

/** 6,000 AGCO definitions, about 3 MB as JSON: a page of them crosses from the query process in slices. */
export const longPageDefinitions = () =>
  Array.from({ length: 6000 }, (_, i) => ({
    Id: `Long.${String(i).padStart(5, '0')}`,
    DescriptionForTranslator: `${i} ${'d'.repeat(200)}`,
    Translations: [{ LanguageId: 1033, StringValue: `v${i} ${'s'.repeat(150)}` }],
  }));
