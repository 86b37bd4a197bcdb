// The mockyard dashboard: live requests, scenarios and stubs, fixtures, controls, and traffic at a glance.
import { Api, type AreaInfo, type JournalSummary } from './api.js';
import { areaChart, type Bucket } from './chart.js';
import { ControlsView } from './controls.js';
import { h, replace } from './dom.js';
import { FixturesView } from './fixtures.js';
import { ManageView } from './manage.js';
import { RequestsView } from './requests.js';

const TRAFFIC_POLL_MS = 5000;

const body = document.body;
const areas = JSON.parse(body.dataset.areas ?? '[]') as AreaInfo[];
const adminOn = body.dataset.admin === 'true';
const stubsOn = body.dataset.stubs === 'true';
const api = new Api();

const status = h('p', { className: 'sr-only', role: 'status', 'aria-live': 'polite' });
const announce = (message: string) => {
  status.textContent = message;
};
const liveState = h('span', { className: 'live-state' }, 'connecting…');
const glance = h('div', { className: 'glance-row', 'aria-label': 'Traffic per area, last 5 minutes', role: 'group' });

const requests = new RequestsView(api, areas, announce, stubsOn);
const manage = new ManageView(api, announce, stubsOn);
const fixtures = new FixturesView(api, areas, announce);
const controls = new ControlsView(api, areas, announce);
const panels = [
  { id: 'requests', label: 'Requests', view: requests, refresh: async () => undefined },
  { id: 'manage', label: 'Scenarios & stubs', view: manage, refresh: () => manage.refresh() },
  { id: 'fixtures', label: 'Fixtures', view: fixtures, refresh: () => fixtures.refresh() },
  { id: 'controls', label: 'Controls', view: controls, refresh: () => controls.refresh() },
];

function tabs(): HTMLElement {
  const list = h('nav', { role: 'tablist', 'aria-label': 'Dashboard sections' });
  const select = (id: string) => {
    for (const p of panels) {
      const on = p.id === id;
      p.view.root.hidden = !on;
      const tab = document.getElementById(`tab-${p.id}`);
      tab?.setAttribute('aria-selected', String(on));
      tab?.setAttribute('tabindex', on ? '0' : '-1');
      if (on) void p.refresh();
    }
  };
  for (const p of panels) {
    list.append(
      h(
        'button',
        {
          id: `tab-${p.id}`,
          role: 'tab',
          type: 'button',
          'aria-controls': `panel-${p.id}`,
          onclick: () => select(p.id),
        },
        p.label,
      ),
    );
  }
  list.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const i = panels.findIndex((p) => document.getElementById(`tab-${p.id}`) === document.activeElement);
    const next = panels[(i + (event.key === 'ArrowRight' ? 1 : panels.length - 1)) % panels.length];
    if (next) {
      select(next.id);
      document.getElementById(`tab-${next.id}`)?.focus();
    }
  });
  queueMicrotask(() => select('requests'));
  return list;
}

function tokenForm(): HTMLElement {
  const input = h('input', { id: 'admin-token', type: 'password', autocomplete: 'off' });
  const form = h(
    'form',
    {
      className: 'token',
      onsubmit: (event: Event) => {
        event.preventDefault();
        api.setToken(input.value || null);
        form.hidden = true;
        announce('Token saved for this tab');
        connect();
      },
    },
    h('label', { for: 'admin-token' }, 'Admin token (--admin-token)'),
    input,
    h('button', { type: 'submit' }, 'Use token'),
  );
  form.hidden = body.dataset.tokenRequired !== 'true' || api.token !== null;
  api.onUnauthorized = () => {
    form.hidden = false;
    liveState.textContent = 'needs the admin token';
  };
  return form;
}

let stream: AbortController | null = null;
let retry = 1000;

function connect(): void {
  stream?.abort();
  const controller = new AbortController();
  stream = controller;
  liveState.textContent = 'connecting…';
  api
    .stream(controller.signal, (event, data) => {
      retry = 1000;
      liveState.textContent = 'live';
      if (event === 'snapshot') requests.add((data as JournalSummary[]).slice().reverse());
      else if (event === 'requests') {
        const batch = data as { requests: JournalSummary[]; dropped: number };
        requests.add(batch.requests, batch.dropped);
      }
    })
    .then(
      () => reconnect(controller),
      (err: Error & { status?: number }) => {
        if (controller.signal.aborted) return;
        if (err.status === 401) return;
        reconnect(controller);
      },
    );
}

function reconnect(controller: AbortController): void {
  if (controller.signal.aborted || stream !== controller) return;
  liveState.textContent = `reconnecting in ${Math.round(retry / 1000)} s`;
  setTimeout(connect, retry);
  retry = Math.min(retry * 2, 30_000);
}

async function pollTraffic(): Promise<void> {
  if (document.visibilityState === 'visible') {
    try {
      const t = await api.request<{ bucketMs: number; areas: Record<string, Bucket[]> }>('GET', '/__mockyard/traffic');
      replace(glance, ...areas.map((a) => areaChart(a.name, t.areas[a.name] ?? [], t.bucketMs)));
    } catch {
      // Shown by the live state; try again at the next tick.
    }
  }
  setTimeout(pollTraffic, TRAFFIC_POLL_MS);
}

function start(): void {
  const header = h(
    'header',
    {},
    h('h1', {}, 'mockyard'),
    h(
      'p',
      { className: 'muted' },
      'Live requests: ',
      liveState,
      ' · ',
      h('a', { href: '/docs' }, 'API docs'),
      ' · ',
      h('a', { href: '/__mockyard/health' }, 'health'),
    ),
  );
  if (!adminOn) {
    replace(
      body,
      header,
      h('main', {}, h('p', {}, 'The admin routes are off (--admin off), so the dashboard has nothing to show.')),
    );
    return;
  }
  replace(body, header, tokenForm(), h('main', {}, glance, tabs(), ...panels.map((p) => p.view.root)), status);
  connect();
  void pollTraffic();
}

start();
