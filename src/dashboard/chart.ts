// "At a glance": requests per second and error share per area, as small SVG bar charts.
import { h } from './dom.js';

export interface Bucket {
  start: number;
  requests: number;
  errors: number;
  clientErrors: number;
}

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export function areaChart(area: string, buckets: Bucket[], bucketMs: number): HTMLElement {
  const total = buckets.reduce((n, b) => n + b.requests, 0);
  const failed = buckets.reduce((n, b) => n + b.errors + b.clientErrors, 0);
  // The rate over the last minute: one 10-second bucket alone jumps too much to read.
  const recent = buckets.slice(-Math.max(1, Math.round(60_000 / bucketMs)));
  const rate = recent.reduce((n, b) => n + b.requests, 0) / ((recent.length * bucketMs) / 1000);
  const share = total > 0 ? Math.round((failed / total) * 100) : 0;
  const max = Math.max(1, ...buckets.map((b) => b.requests));
  const width = 150;
  const height = 36;
  const step = width / Math.max(1, buckets.length);
  const chart = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width: '100%',
    height,
    preserveAspectRatio: 'none',
    role: 'img',
  });
  const minutes = Math.round((buckets.length * bucketMs) / 60000);
  chart.setAttribute('aria-label', `${area}: ${total} requests in the last ${minutes} minutes, ${share}% errors`);
  buckets.forEach((b, i) => {
    const ok = ((b.requests - b.errors - b.clientErrors) / max) * height;
    const bad = ((b.errors + b.clientErrors) / max) * height;
    if (ok > 0)
      chart.append(svg('rect', { x: i * step, y: height - ok, width: step - 1, height: ok, class: 'bar-ok' }));
    if (bad > 0) {
      chart.append(
        svg('rect', { x: i * step, y: height - ok - bad, width: step - 1, height: bad, class: 'bar-error' }),
      );
    }
  });
  return h(
    'figure',
    { className: 'glance' },
    h(
      'figcaption',
      {},
      h('strong', {}, area),
      ` ${rate < 1 ? rate.toFixed(2) : rate.toFixed(1)} req/s (last minute) · ${share}% errors`,
    ),
    chart,
  );
}
