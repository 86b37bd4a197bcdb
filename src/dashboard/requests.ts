// Live requests: the journal streamed in, filtered, paused, cleared, and one request in detail.
import type { Api, AreaInfo, JournalEntry, JournalSummary } from './api.js';
import { copy, curl, h, replace } from './dom.js';
import { failurePart, nearMissPart, stubLabel, stubPart } from './why.js';

/** Entries kept in the page: a tab left open for hours holds at most this many. */
export const MAX_ENTRIES = 1000;
const SHOWN_ROWS = 200;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'accept-encoding', 'keep-alive']);

interface Filters {
  area: string;
  status: string;
  scenario: string;
  text: string;
}

const statusClass = (s: number | null) => (s === null ? 'none' : `${Math.floor(s / 100)}xx`);

export class RequestsView {
  readonly root = h('section', { id: 'panel-requests', role: 'tabpanel', 'aria-labelledby': 'tab-requests' });
  #entries: JournalSummary[] = [];
  #held: JournalSummary[] = [];
  #paused = false;
  #dropped = 0;
  #filters: Filters = { area: '', status: '', scenario: '', text: '' };
  #tbody = h('tbody');
  #count = h('p', { className: 'muted', 'aria-live': 'polite' });
  #detail = h('aside', { className: 'detail', 'aria-label': 'Selected request' });
  #pauseButton = h('button', { type: 'button', onclick: () => this.#togglePause() }, 'Pause');
  #scenarios = h('datalist', { id: 'scenario-names' });

  constructor(
    private readonly api: Api,
    private readonly areas: AreaInfo[],
    private readonly announce: (message: string) => void,
    /** Whether this server has WireMock's admin API, which reports near misses. */
    private readonly stubs: boolean,
  ) {
    this.root.append(this.#toolbar(), this.#count, this.#table(), this.#detail);
    this.#detail.hidden = true;
  }

  #toolbar(): HTMLElement {
    const set = (key: keyof Filters) => (event: Event) => {
      this.#filters[key] = (event.target as HTMLInputElement).value;
      this.render();
    };
    const select = (id: string, label: string, key: keyof Filters, options: [string, string][]) =>
      h(
        'label',
        { for: id },
        label,
        h('select', { id, onchange: set(key) }, ...options.map(([v, t]) => h('option', { value: v }, t))),
      );
    return h(
      'div',
      { className: 'toolbar', role: 'group', 'aria-label': 'Filter requests' },
      select('filter-area', 'Area', 'area', [
        ['', 'All'],
        ...this.areas.map((a): [string, string] => [a.name, a.name]),
      ]),
      select('filter-status', 'Status', 'status', [
        ['', 'All'],
        ['2xx', '2xx'],
        ['3xx', '3xx'],
        ['4xx', '4xx'],
        ['5xx', '5xx'],
        ['none', 'no answer'],
      ]),
      h(
        'label',
        { for: 'filter-scenario' },
        'Scenario',
        h('input', { id: 'filter-scenario', list: 'scenario-names', oninput: set('scenario') }),
      ),
      this.#scenarios,
      h(
        'label',
        { for: 'filter-text' },
        'Text',
        h('input', { id: 'filter-text', type: 'search', oninput: set('text') }),
      ),
      this.#pauseButton,
      h('button', { type: 'button', onclick: () => this.clear() }, 'Clear'),
    );
  }

  #table(): HTMLElement {
    const cols = ['Time', 'Method', 'Area', 'Path', 'Status', 'ms', 'Scenario', 'Stub'];
    return h(
      'div',
      { className: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Requests' },
      h('table', {}, h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))), this.#tbody),
    );
  }

  /** New entries from the stream, newest last in `batch`. */
  add(batch: JournalSummary[], dropped = 0): void {
    this.#dropped += dropped;
    if (this.#paused) {
      this.#held.push(...batch);
      if (this.#held.length > MAX_ENTRIES) this.#held.splice(0, this.#held.length - MAX_ENTRIES);
      this.#renderCount();
      return;
    }
    this.#entries.push(...batch);
    if (this.#entries.length > MAX_ENTRIES) this.#entries.splice(0, this.#entries.length - MAX_ENTRIES);
    this.render();
  }

  clear(): void {
    this.#entries = [];
    this.#held = [];
    this.#dropped = 0;
    this.#detail.hidden = true;
    this.render();
    this.announce('Requests cleared');
  }

  #togglePause(): void {
    this.#paused = !this.#paused;
    this.#pauseButton.textContent = this.#paused ? 'Resume' : 'Pause';
    this.#pauseButton.setAttribute('aria-pressed', String(this.#paused));
    if (!this.#paused) {
      const held = this.#held;
      this.#held = [];
      this.add(held);
    }
    this.announce(this.#paused ? 'Live updates paused' : 'Live updates resumed');
  }

  #matches(e: JournalSummary): boolean {
    const f = this.#filters;
    if (f.area && e.area !== f.area) return false;
    if (f.status && statusClass(e.status) !== f.status) return false;
    if (f.scenario && (e.scenario ?? '') !== f.scenario) return false;
    if (f.text) {
      const hay =
        `${e.method} ${e.path} ${JSON.stringify(e.query)} ${e.operationId ?? ''} ${stubLabel(e)}`.toLowerCase();
      if (!hay.includes(f.text.toLowerCase())) return false;
    }
    return true;
  }

  render(): void {
    const rows: HTMLElement[] = [];
    const names = new Set<string>();
    let matching = 0;
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const e = this.#entries[i] as JournalSummary;
      if (e.scenario) names.add(e.scenario);
      if (!this.#matches(e)) continue;
      matching += 1;
      if (rows.length < SHOWN_ROWS) rows.push(this.#row(e));
    }
    replace(this.#tbody, rows);
    replace(
      this.#scenarios,
      [...names].map((n) => h('option', { value: n })),
    );
    this.#renderCount(matching);
  }

  #renderCount(matching?: number): void {
    const parts = [
      `${matching ?? this.#entries.filter((e) => this.#matches(e)).length} of ${this.#entries.length} requests`,
    ];
    if (this.#paused) parts.push(`paused, ${this.#held.length} waiting`);
    if (this.#dropped > 0) parts.push(`${this.#dropped} missed while the page could not keep up`);
    this.#count.textContent = parts.join(' · ');
  }

  #row(e: JournalSummary): HTMLElement {
    const time = e.timestamp.slice(11, 23);
    const open = () => void this.select(e);
    return h(
      'tr',
      { className: `status-${statusClass(e.status)}`, 'data-id': e.id },
      h('td', {}, time),
      h('td', {}, e.method),
      h('td', {}, e.area),
      h('td', { className: 'path' }, h('button', { type: 'button', className: 'link', onclick: open }, e.path)),
      h('td', {}, e.status ?? '—'),
      h('td', { className: 'num' }, e.durationMs),
      h('td', {}, e.scenario ?? ''),
      h('td', {}, stubLabel(e)),
    );
  }

  urlOf(e: JournalSummary): string {
    const area = this.areas.find((a) => a.name === e.area);
    const path =
      area && !e.path.startsWith(`${area.prefix}/`) && !e.path.includes(`${area.prefix}/`)
        ? `${area.prefix}${e.path}`
        : e.path;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(e.query)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
    const qs = params.toString();
    return `${location.origin}${path}${qs ? `?${qs}` : ''}`;
  }

  async select(summary: JournalSummary): Promise<void> {
    let parts: HTMLElement[];
    try {
      const e = await this.api.request<JournalEntry>('GET', `/__mockyard/requests/${summary.id}`);
      parts = await this.#detailParts(e);
    } catch (err) {
      // Gone from the journal since (it keeps the last --journal-size): the row is all there is.
      parts = [
        h('h2', { tabindex: -1 }, `${summary.method} ${summary.path}`),
        h('p', {}, (err as Error).message),
        h('button', { type: 'button', onclick: () => this.#close() }, 'Close'),
      ];
    }
    this.#detail.hidden = false;
    replace(this.#detail, ...parts);
    this.#detail.querySelector('h2')?.focus();
  }

  #close(): void {
    this.#detail.hidden = true;
  }

  async #detailParts(e: JournalEntry): Promise<HTMLElement[]> {
    const headers = Object.fromEntries(Object.entries(e.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
    const body = typeof e.requestBody === 'string' ? e.requestBody : undefined;
    const command = curl(e.method, this.urlOf(e), headers, body);
    const known = new Set([
      'requestBody',
      'responseHeaders',
      'responseBody',
      'id',
      'method',
      'area',
      'operationId',
      'path',
      'query',
      'headers',
      'status',
      'durationMs',
      'timestamp',
      'fault',
      'forced',
      'scenario',
      'stub',
    ]);
    const [stub, nearMisses] = await Promise.all([
      stubPart(this.api, e, this.stubs),
      nearMissPart(this.api, e, this.stubs),
    ]);
    const extra = Object.fromEntries(Object.entries(e).filter(([k]) => !known.has(k)));
    return [
      h('h2', { tabindex: -1 }, `${e.method} ${e.path}`),
      h(
        'p',
        {},
        `${e.status ?? 'no answer'} · ${e.durationMs} ms · ${e.area} · ${e.operationId ?? 'no operation matched'}`,
        e.forced ? ' · simulated status' : '',
        e.fault ? ` · fault ${e.fault}` : '',
        stubLabel(e) ? ` · stub ${stubLabel(e)}` : '',
      ),
      h(
        'div',
        { className: 'actions' },
        h('button', { type: 'button', onclick: () => void copy(command, this.announce) }, 'Copy as curl'),
        h('button', { type: 'button', onclick: () => this.#close() }, 'Close'),
      ),
      h('h3', {}, 'Request'),
      h('pre', { tabindex: 0 }, JSON.stringify({ query: e.query, headers: e.headers }, null, 2)),
      ...(e.requestBody ? [h('pre', { tabindex: 0, 'aria-label': 'Request body' }, e.requestBody)] : []),
      h('h3', {}, 'Answer'),
      h('pre', { tabindex: 0 }, JSON.stringify({ status: e.status, headers: e.responseHeaders ?? {} }, null, 2)),
      ...(e.responseBody ? [h('pre', { tabindex: 0, 'aria-label': 'Answer body' }, e.responseBody)] : []),
      ...(Object.keys(extra).length > 0
        ? [h('h3', {}, 'More'), h('pre', { tabindex: 0 }, JSON.stringify(extra, null, 2))]
        : []),
      ...stub,
      ...failurePart(e),
      ...nearMisses,
    ];
  }
}
