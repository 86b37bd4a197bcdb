// Every area: the same body gives byte-identical answers; two scenarios used in parallel never see each other's records.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { inScenario, putScenario } from './helpers.js';

const { app } = await testApp();

/** One body per variant: the same identifiers everywhere, different records. */
const body = (variant: string, n: number) => ({
  appcenter: {
    users: [{ name: 'u', token: 'u-token' }],
    apps: [
      {
        owner: 'u',
        name: 'App',
        releases: Array.from({ length: n }, (_, i) => ({
          id: i + 1,
          version: `${variant}${i}`,
          short_version: `${n}.${i}`,
          uploaded_at: `2025-0${i + 1}-01T00:00:00Z`,
        })),
      },
    ],
  },
  agco: {
    definitions: Array.from({ length: n }, (_, i) => ({
      Id: `Def.${i}`,
      DescriptionForTranslator: `${variant} ${i}`,
      Translations: [{ LanguageId: 1033, StringValue: `${variant} text ${i}` }],
    })),
  },
  marketcheck: {
    listings: Array.from({ length: n }, (_, i) => ({
      make: 'Make',
      model: `${variant}-${i % 2}`,
      car_type: 'used',
      state: 'TX',
      city: 'Austin',
      price: 1000 * (i + 1),
      miles: 10,
      dom: 1,
    })),
  },
  archive: {
    items: [
      {
        identifier: 'same-id',
        files: [
          { name: 'a.txt', content: `${variant}\n`.repeat(n) },
          { name: 'b.bin', size: 4096 * n },
        ],
      },
    ],
  },
  dkan: {
    datasets: [
      {
        id: 'same-id',
        resources: [{ rows: Array.from({ length: n }, (_, i) => ({ label: `${variant}${i}`, n: i })) }],
      },
    ],
  },
});

const requests: { url: string; headers: Record<string, string> }[] = [
  { url: '/appcenter/v0.1/apps/u/App/releases', headers: { 'x-api-token': 'u-token' } },
  { url: '/agco/api/v2/StringDefinitions?includeTranslations=true', headers: { authorization: 'Bearer t' } },
  { url: '/marketcheck/popular/cars?api_key=k&car_type=used&city_state=austin%7Ctx', headers: {} },
  { url: '/archive/metadata/same-id', headers: {} },
  { url: '/archive/download/same-id/a.txt', headers: {} },
  { url: '/archive/download/same-id/b.bin', headers: { range: 'bytes=10-4000' } },
  { url: '/dkan/datastore/query/same-id/0?sort=n desc', headers: {} },
];

async function answers(scenario: string): Promise<string[]> {
  return Promise.all(
    requests.map(async (r) => {
      const res = await app.inject({ url: r.url, headers: inScenario(scenario, r.headers) });
      expect(res.statusCode, `${r.url} in ${scenario}`).toBeLessThan(300);
      return createHash('sha256').update(res.rawPayload).digest('hex');
    }),
  );
}

describe('scenarios are deterministic and isolated in every area', () => {
  it('gives byte-identical answers for the same body, also after a replace', async () => {
    await putScenario(app, 'twin-1', body('x', 3));
    await putScenario(app, 'twin-2', body('x', 3));
    const first = await answers('twin-1');
    expect(await answers('twin-2')).toEqual(first);
    await putScenario(app, 'twin-2', body('y', 3));
    await putScenario(app, 'twin-2', body('x', 3));
    expect(await answers('twin-2')).toEqual(first);
  });

  it('keeps two scenarios with the same identifiers apart while they are used in parallel', async () => {
    await putScenario(app, 'left', body('L', 2));
    await putScenario(app, 'right', body('R', 4));
    const [left, right] = await Promise.all([answers('left'), answers('right')]);
    const rounds = await Promise.all(Array.from({ length: 6 }, (_, i) => answers(i % 2 ? 'right' : 'left')));
    rounds.forEach((got, i) => expect(got).toEqual(i % 2 ? right : left));
    // Bytes given by size follow from identifier and name, so b.bin's first 4 KiB are the same in both; its size is not.
    left.forEach((hash, i) => {
      if (!requests[i]!.url.endsWith('b.bin')) expect(hash, requests[i]!.url).not.toBe(right[i]);
    });
    const sizes = await Promise.all(
      ['left', 'right'].map(
        async (s) =>
          (await app.inject({ url: '/archive/download/same-id/b.bin', headers: inScenario(s) })).rawPayload.length,
      ),
    );
    expect(sizes).toEqual([8192, 16384]);
    const text = await app.inject({ url: '/archive/download/same-id/a.txt', headers: inScenario('right') });
    expect(text.body).toBe('R\n'.repeat(4));
  });

  it('leaves the generated data alone', async () => {
    expect((await app.inject('/archive/metadata/same-id')).body).toBe('{}');
    expect((await app.inject('/dkan/datastore/query/same-id/0')).statusCode).toBe(404);
    const agco = await app.inject({
      url: '/agco/api/v2/StringDefinitions?limit=1',
      headers: { authorization: 'Bearer t' },
    });
    expect(agco.json().Metadata.TotalCount).toBeGreaterThan(1000);
  });
});
