// npm run soak: the built server under minutes of mixed load over all areas; errors, memory growth and
// health-probe latency (event-loop delay as a client sees it), the longest event-loop stall inside the server,
// with a non-zero exit when a goal fails.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { packageRoot } from '../src/paths.js';
import { LAUNCH_FLAGS, pinSelfToCore1, rssMiB, spawnNode, waitReady } from './lib.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '300' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string' },
    'rss-goal': { type: 'string', default: '10' },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  console.log(`npm run soak -- [options]
  --duration <s>      seconds of load (default 300)
  --connections <n>   concurrent connections (default 50)
  --warmup <s>        seconds before the memory baseline is taken (default 10% of duration, 5..60)
  --rss-goal <pct>    allowed resident memory growth after warm-up (default 10)`);
  process.exit(0);
}

const duration = Number(args.duration);
const connections = Number(args.connections);
const warmup = args.warmup !== undefined ? Number(args.warmup) : Math.min(60, Math.max(5, Math.round(duration / 10)));
const rssGoal = Number(args['rss-goal']);
if (![duration, connections, warmup, rssGoal].every((n) => Number.isFinite(n) && n >= 0) || duration <= warmup) {
  console.error('soak: --duration must be a number of seconds greater than --warmup; --connections a number');
  process.exit(2);
}

interface Catalog {
  archive: { items: { identifier: string; files: string[]; status: string }[] };
  marketcheck: { apiKeys: string[]; states: { us: string[]; ca: string[] }; cities: string[] };
  appcenter: { tokens: { token: string; groups: string[] }[] };
  agco: { tokens: string[]; stringIds: string[]; languages: { id: number }[] };
  dkan: {
    datasets: {
      id: string;
      resources: { index: number; distributionId: string; columns: { name: string; type: string }[] }[];
    }[];
  };
}

interface Req {
  area: string;
  path: string;
  headers?: Record<string, string>;
}

const enc = encodeURIComponent;

/** A fixed, varied mix over every area: successes mostly, some 4xx a real client also causes. */
function mix(c: Catalog): Req[] {
  return [...archiveMix(c), ...marketcheckMix(c), ...appcenterMix(c), ...agcoMix(c), ...dkanMix(c)];
}

function archiveMix(c: Catalog): Req[] {
  const out: Req[] = [];
  const ok = c.archive.items.filter((i) => i.status === 'ok');
  for (const [i, item] of ok.slice(0, 20).entries()) {
    out.push({ area: 'archive', path: `/archive/metadata/${item.identifier}` });
    out.push({ area: 'archive', path: `/archive/metadata/${item.identifier}/files` });
    const small = item.files.filter((f) => /\.(xml|txt|json|csv)$/.test(f));
    for (const f of small.slice(0, 2))
      out.push({ area: 'archive', path: `/archive/download/${item.identifier}/${f.split('/').map(enc).join('/')}` });
    if (small[0])
      out.push({
        area: 'archive',
        path: `/archive/download/${item.identifier}/${enc(small[0])}`,
        headers: { range: `bytes=${i}-${i + 99}` },
      });
  }
  out.push({ area: 'archive', path: '/archive/download/no-such-item/file.txt' });
  return out;
}

function marketcheckMix(c: Catalog): Req[] {
  const out: Req[] = [];
  const key = c.marketcheck.apiKeys[0] ?? 'soak';
  for (const t of ['new', 'used']) {
    out.push({ area: 'marketcheck', path: `/marketcheck/popular/cars?api_key=${key}&car_type=${t}` });
    for (const s of c.marketcheck.states.us.slice(0, 15))
      out.push({ area: 'marketcheck', path: `/marketcheck/popular/cars?api_key=${key}&car_type=${t}&state=${s}` });
    for (const city of c.marketcheck.cities.slice(0, 15))
      out.push({
        area: 'marketcheck',
        path: `/marketcheck/popular/cars?api_key=${key}&car_type=${t}&city_state=${enc(city)}`,
      });
  }
  out.push({ area: 'marketcheck', path: `/marketcheck/popular/cars?api_key=${key}&car_type=old` });
  return out;
}

function appcenterMix(c: Catalog): Req[] {
  const out: Req[] = [];
  for (const t of c.appcenter.tokens) {
    for (const g of t.groups) {
      const [owner, app] = g.split('/');
      out.push({
        area: 'appcenter',
        path: `/appcenter/v0.1/apps/${enc(owner!)}/${enc(app!)}/releases`,
        headers: { 'x-api-token': t.token },
      });
      out.push({
        area: 'appcenter',
        path: `/appcenter/v0.1/apps/${enc(owner!)}/${enc(app!)}/releases?published_only=true&top=5`,
        headers: { 'x-api-token': t.token },
      });
    }
  }
  out.push({
    area: 'appcenter',
    path: '/appcenter/v0.1/apps/nobody/nothing/releases',
    headers: { 'x-api-token': c.appcenter.tokens[0]!.token },
  });
  return out;
}

function agcoMix(c: Catalog): Req[] {
  const out: Req[] = [];
  const auth = { authorization: `Bearer ${c.agco.tokens[0]}` };
  const langs = c.agco.languages.map((l) => l.id);
  for (let i = 0; i < 30; i++) {
    out.push({ area: 'agco', path: `/agco/api/v2/StringDefinitions?limit=${10 + i}&offset=${i * 7}`, headers: auth });
    out.push({
      area: 'agco',
      path: `/agco/api/v2/StringDefinitions?includeTranslations=true&languageIds=${langs[i % langs.length]}&limit=20`,
      headers: auth,
    });
    out.push({
      area: 'agco',
      path: `/agco/api/v2/StringDefinitions?stringIds=${c.agco.stringIds
        .slice(i, i + 5)
        .map(enc)
        .join(',')}`,
      headers: auth,
    });
  }
  out.push({
    area: 'agco',
    path: '/agco/api/v2/StringDefinitions?useFullText=true&descriptionText=warning',
    headers: auth,
  });
  out.push({
    area: 'agco',
    path: '/agco/api/v2/StringDefinitions?includeTranslations=true&stringText=trac*',
    headers: { ...auth, accept: 'application/xml' },
  });
  return out;
}

function dkanMix(c: Catalog): Req[] {
  const out: Req[] = [];
  for (const ds of c.dkan.datasets.slice(0, 4)) {
    for (const r of ds.resources) {
      const text = r.columns.find((col) => col.type === 'text')?.name ?? r.columns[0]!.name;
      for (let i = 0; i < 25; i++) {
        out.push({ area: 'dkan', path: `/dkan/datastore/query/${ds.id}/${r.index}?limit=${20 + i}&offset=${i * 131}` });
        out.push({
          area: 'dkan',
          path: `/dkan/datastore/query/${r.distributionId}?limit=10&sort=${text}&offset=${i * 17}`,
        });
        out.push({
          area: 'dkan',
          path: `/dkan/datastore/query/${ds.id}/${r.index}?limit=5&conditions[0][property]=${text}&conditions[0][value]=${'ABCDEFGHIJKLMNOPQRSTUVWXY'[i]}%25&conditions[0][operator]=like`,
        });
      }
      out.push({ area: 'dkan', path: `/dkan/datastore/query/${ds.id}/${r.index}?limit=5&format=csv` });
    }
  }
  out.push({ area: 'dkan', path: '/dkan/datastore/query/no-such/0' });
  return out;
}

interface ProbeResult {
  /** Seconds since the start of the load, and the probe's latency in ms. */
  latencies: { t: number; ms: number }[];
  failures: number;
}

// The probe runs on its own thread: the load generator's busy event loop must not add to what it measures.
const PROBE_THREAD = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const state = { latencies: [], failures: 0 };
const timer = setInterval(() => {
  const t0 = process.hrtime.bigint();
  http.get(workerData.url + '/__mockyard/health', { agent }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode === 200) state.latencies.push({ t: (Date.now() - workerData.started) / 1000, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
      else state.failures++;
    });
  }).on('error', () => state.failures++);
}, 100);
parentPort.on('message', () => { clearInterval(timer); parentPort.postMessage(state); agent.destroy(); });
`;

/** GET /__mockyard/health every 100 ms on one keep-alive connection: its latency is the event-loop delay (plus queueing) a client sees. */
function probe(url: string, started: number): { stop(): Promise<ProbeResult> } {
  const worker = new Worker(PROBE_THREAD, { eval: true, workerData: { url, started } });
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (r: ProbeResult) => {
          void worker.terminate();
          resolve(r);
        });
        worker.postMessage('stop');
      }),
  };
}

const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

pinSelfToCore1();
const cli = path.join(packageRoot(), 'dist', 'bundle', 'cli.js');
// The longest stall of the server's event loop is measured inside it, by a preloaded monitor.
const monitor = path.join(packageRoot(), 'dist', 'bench', 'stall-monitor.js');
const server = await waitReady(
  spawnNode([...LAUNCH_FLAGS, '--import', monitor, cli, '--port', '0', '--log-level', 'warn']),
  /ready at (http:\/\/\S+)/,
  (m) => m[1]!,
);
const pid = server.child.pid;
let serverErr = '';
server.child.stderr?.on('data', (c: Buffer) => (serverErr += c.toString()));
const STALL_GOAL_MS = 100;
let exitCode = 0;
try {
  const catalog = (await (await fetch(`${server.url}/__mockyard/fixtures`)).json()) as Catalog;
  const requests = mix(catalog);
  const perArea: Record<string, number> = {};
  for (const r of requests) perArea[r.area] = (perArea[r.area] ?? 0) + 1;
  console.log(
    `soak: ${duration} s at ${connections} connections against ${server.url} (pid ${pid}), ${requests.length} distinct requests (${Object.entries(
      perArea,
    )
      .map(([a, n]) => `${a} ${n}`)
      .join(', ')}), warm-up ${warmup} s`,
  );

  server.child.kill('SIGWINCH'); // start-up is not part of the measurement
  const samples: { t: number; rss: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => samples.push({ t: (Date.now() - started) / 1000, rss: rssMiB(pid) }), 1000);
  samples.push({ t: 0, rss: rssMiB(pid) });
  const prober = probe(server.url, started);
  let i = 0;
  const sent: Record<string, number> = {};
  const result = await autocannon({
    url: server.url,
    connections,
    duration,
    timeout: 10,
    requests: [
      {
        setupRequest: (req) => {
          const r = requests[i++ % requests.length]!;
          sent[r.area] = (sent[r.area] ?? 0) + 1;
          return { ...req, path: r.path, headers: { ...req.headers, ...r.headers } };
        },
      },
    ],
  });
  const health = await prober.stop();
  clearInterval(sampler);
  samples.push({ t: (Date.now() - started) / 1000, rss: rssMiB(pid) });

  const journal = (await (await fetch(`${server.url}/__mockyard/requests/count`)).json()) as { count: number };
  const afterWarmup = samples.filter((s) => s.t >= warmup);
  const window = Math.max(1, Math.min(10, Math.floor(afterWarmup.length / 4)));
  const base = mean(afterWarmup.slice(0, window).map((s) => s.rss));
  const end = mean(afterWarmup.slice(-window).map((s) => s.rss));
  const peak = Math.max(...samples.map((s) => s.rss));
  const growth = ((end - base) / base) * 100;
  const errors = result.errors + result.timeouts + result['5xx'];
  const curve = Array.from({ length: 11 }, (_, k) => samples[Math.round((k / 10) * (samples.length - 1))]!).map(
    (s) => `${s.t.toFixed(0)}s ${s.rss.toFixed(0)}`,
  );

  console.log(
    `requests:  ${result.requests.total} (${result.requests.average.toFixed(0)} req/s) per area: ${Object.entries(sent)
      .map(([a, n]) => `${a} ${n}`)
      .join(', ')}`,
  );
  console.log(
    `statuses:  2xx ${result['2xx']}, 3xx ${result['3xx']}, 4xx ${result['4xx']} (expected: the mix has a few), 5xx ${result['5xx']}; socket errors ${result.errors}, timeouts ${result.timeouts}`,
  );
  console.log(`latency:   p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
  const probeLine = (list: { ms: number }[]) => {
    const ms = list.map((l) => l.ms);
    return `p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
  };
  console.log(
    `probe:     ${health.latencies.length} health checks (event-loop delay seen from outside): ${probeLine(health.latencies)}, failures ${health.failures}`,
  );
  console.log(`           after warm-up: ${probeLine(health.latencies.filter((l) => l.t >= warmup))}`);
  console.log(
    `memory:    start ${samples[0]!.rss.toFixed(1)} MiB, after warm-up ${base.toFixed(1)} MiB, peak ${peak.toFixed(1)} MiB, end ${end.toFixed(1)} MiB (growth after warm-up ${growth.toFixed(1)} %)`,
  );
  console.log(`curve MiB: ${curve.join(' | ')}`);
  console.log(`journal:   ${journal.count} entries kept`);

  const goals = [
    {
      name: 'errors (socket errors, timeouts, 5xx) = 0',
      pass: errors === 0 && health.failures === 0,
      value: String(errors + health.failures),
    },
    { name: `RSS growth after warm-up < ${rssGoal} %`, pass: growth < rssGoal, value: `${growth.toFixed(1)} %` },
  ];
  for (const g of goals) console.log(`${g.pass ? 'PASS' : 'FAIL'}  ${g.name}: ${g.value}`);
  if (goals.some((g) => !g.pass)) exitCode = 1;
} finally {
  const t0 = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    server.child.once('exit', (c) => resolve(c));
    server.child.kill('SIGTERM');
    setTimeout(() => server.child.kill('SIGKILL'), 10_000).unref();
  });
  console.log(`shutdown:  exit ${code} after ${Date.now() - t0} ms`);
  if (code !== 0) exitCode = 1;
  // Written by the monitor as the server exits.
  const stall = /event-loop-stall: max ([\d.]+) ms, p99 ([\d.]+) ms/.exec(serverErr);
  if (stall) {
    const pass = Number(stall[1]) <= STALL_GOAL_MS;
    console.log(`event loop: longest stall ${stall[1]} ms, p99 ${stall[2]} ms (measured inside the server)`);
    console.log(`${pass ? 'PASS' : 'FAIL'}  longest event-loop stall <= ${STALL_GOAL_MS} ms: ${stall[1]} ms`);
    if (!pass) exitCode = 1;
  } else {
    console.log('FAIL  longest event-loop stall: the server did not report it');
    exitCode = 1;
  }
}
process.exit(exitCode);
