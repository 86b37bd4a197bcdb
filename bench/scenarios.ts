// Scenario workloads: creating 1,000-record scenarios, and requests in a scenario against the same requests on generated data.
import { load, median } from './lib.js';
import type { CustomArgs } from './types.js';

const day = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

/** A scenario body of `n` records for each area (archive: n files over n/10 items). */
export function scenarioBodies(n: number): Record<string, unknown> {
  return {
    appcenter: { appcenter: appcenterRecords(n) },
    agco: { agco: agcoRecords(n) },
    marketcheck: { marketcheck: { listings: Array.from({ length: n }, (_, i) => listing(i)) } },
    archive: { archive: archiveRecords(n) },
    dkan: {
      dkan: {
        datasets: [
          {
            id: 'bench',
            resources: [
              {
                rows: Array.from({ length: n }, (_, i) => ({
                  name: `row ${i}`,
                  amount: (i * 37) % 1000,
                  price: ((i * 13) % 10_000) / 100,
                  day: day(i).slice(0, 10),
                })),
              },
            ],
          },
        ],
      },
    },
  };
}

function appcenterRecords(n: number) {
  return {
    users: [
      { name: 'owner', token: 'owner-token' },
      { name: 'tester', token: 'tester-token', groups: ['owner/App/Beta'] },
    ],
    apps: [
      {
        owner: 'owner',
        name: 'App',
        groups: [{ name: 'Beta' }, { name: 'Staff', members: ['owner'] }],
        releases: Array.from({ length: n }, (_, i) => ({
          id: i + 1,
          version: String(1000 + i),
          short_version: `1.${Math.floor(i / 10)}.${i % 10}`,
          uploaded_at: day(i),
          ...(i % 3 === 0 ? {} : { distribution_groups: [{ name: i % 2 ? 'Beta' : 'Staff' }] }),
        })),
      },
    ],
  };
}

function agcoRecords(n: number) {
  return {
    languages: [
      { LocaleId: 1033, Description: 'English' },
      { LocaleId: 1031, Description: 'German' },
      { LocaleId: 1035, Description: 'Finnish', IsDeleted: true },
    ],
    definitions: Array.from({ length: n }, (_, i) => ({
      Id: `Screen.Label.${i}`,
      DescriptionForTranslator: `Label number ${i} on the screen`,
      Translations: [
        { LanguageId: 1033, StringValue: `Label ${i}`, State: 'Original' },
        { LanguageId: 1031, StringValue: `Beschriftung ${i}` },
      ],
    })),
  };
}

const listing = (i: number) => ({
  make: `Make${i % 12}`,
  model: `Model${i % 60}`,
  car_type: i % 3 ? 'used' : 'new',
  state: ['TX', 'CA', 'FL', 'NY'][i % 4],
  city: `City${i % 9}`,
  price: 10_000 + ((i * 7919) % 40_000),
  miles: (i * 104_729) % 150_000,
  dom: 1 + (i % 90),
});

function archiveRecords(n: number) {
  return {
    items: Array.from({ length: Math.ceil(n / 10) }, (_, i) => ({
      identifier: `item-${i}`,
      metadata: { title: `Item ${i}`, mediatype: 'texts' },
      files: Array.from({ length: 10 }, (_, j) => ({
        name: `file-${j}.txt`,
        content: `item ${i} file ${j}\n`.repeat(20),
      })),
    })),
  };
}

async function put(url: string, name: string, body: unknown): Promise<number> {
  const text = JSON.stringify(body);
  const started = process.hrtime.bigint();
  const res = await fetch(`${url}/__mockyard/scenarios/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`PUT scenario ${name}: ${res.status} ${await res.text()}`);
  return ms;
}

/** Creating a 1,000-record scenario per area: median of 5 PUTs over HTTP (JSON parse, checks, load, derived tables). */
export async function scenarioCreation(url: string, { rows, goal }: Pick<CustomArgs, 'rows' | 'goal'>): Promise<void> {
  for (const [area, body] of Object.entries(scenarioBodies(1000))) {
    await put(url, `bench-${area}`, body); // warm-up: first compile of the area's statements
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push(await put(url, `bench-${area}`, body));
    const ms = median(times);
    rows.push({
      workload: `S-create-${area}`,
      connections: 1,
      rps: null,
      p50: ms,
      p99: Math.max(...times),
      baselines: {},
      rssMiB: null,
      note: '1,000 records, PUT over HTTP',
    });
    goal(`creating a 1,000-record ${area} scenario <= 200 ms`, ms <= 200, `${ms.toFixed(1)} ms`);
  }
  await fetch(`${url}/__mockyard/reset`, { method: 'POST', headers: { 'x-mockyard-admin': '1' } });
}

/**
 * The same request in a scenario and on generated data, alternating, medians of 3 runs. The App Center
 * scenario is the generated app's own release list pasted back, so both answers have the same size.
 */
export async function scenarioSpeed(
  url: string,
  duration: number,
  connections: number,
  { rows, goal }: Pick<CustomArgs, 'rows' | 'goal'>,
): Promise<void> {
  const catalog = (await (await fetch(`${url}/__mockyard/fixtures`)).json()) as {
    appcenter: { tokens: { token: string; user: string }[]; apps: { owner: string; app: string }[] };
  };
  const app = catalog.appcenter.apps[0]!;
  const token = catalog.appcenter.tokens.find((t) => t.user === app.owner)?.token ?? catalog.appcenter.tokens[0]!.token;
  const releasesPath = `/appcenter/v0.1/apps/${app.owner}/${app.app}/releases`;
  const releases = (await (await fetch(`${url}${releasesPath}`, { headers: { 'x-api-token': token } })).json()) as {
    distribution_groups?: { name: string }[];
  }[];
  const groups = [...new Set(releases.flatMap((r) => (r.distribution_groups ?? []).map((g) => g.name)))].map(
    (name) => ({ name }),
  );
  await put(url, 'bench-paste', {
    appcenter: { users: [{ name: app.owner, token }], apps: [{ owner: app.owner, name: app.app, groups, releases }] },
    marketcheck: (scenarioBodies(1000).marketcheck as { marketcheck: unknown }).marketcheck,
  });
  const cases: { id: string; path: string; headers: Record<string, string> }[] = [
    { id: 'C-releases', path: `${releasesPath}?published_only=true&top=20`, headers: { 'x-api-token': token } },
    { id: 'B-national', path: '/marketcheck/popular/cars?api_key=k&car_type=used', headers: {} },
  ];
  for (const c of cases) {
    const scenarioHeaders = { ...c.headers, 'mockyard-scenario': 'bench-paste' };
    await load(url, [c.path], connections, 1, c.headers);
    await load(url, [c.path], connections, 1, scenarioHeaders);
    const gen: number[] = [];
    const scn: number[] = [];
    for (let round = 0; round < 3; round++) {
      gen.push((await load(url, [c.path], connections, duration, c.headers)).rps);
      scn.push((await load(url, [c.path], connections, duration, scenarioHeaders)).rps);
    }
    const ratio = median(scn) / median(gen);
    rows.push({
      workload: `S-${c.id}`,
      connections,
      rps: median(scn),
      p50: null,
      p99: null,
      baselines: {},
      rssMiB: null,
      note: `Mockyard-Scenario header; ${ratio.toFixed(2)}x the same request on generated data (${median(gen).toFixed(0)} req/s)`,
    });
    goal(`${c.id} in a scenario >= 0.8x the same request on generated data`, ratio >= 0.8, `${ratio.toFixed(2)}x`);
  }
  await fetch(`${url}/__mockyard/reset`, { method: 'POST', headers: { 'x-mockyard-admin': '1' } });
}
