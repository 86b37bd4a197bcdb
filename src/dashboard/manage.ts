// Scenarios and stubs: list, view, upload a JSON file, delete; every change through the admin API.
import type { Api } from './api.js';
import { h, replace } from './dom.js';

interface ScenarioSummary {
  name: string;
  areas: string[];
  /** Records per area, per kind: {"appcenter": {"users": 1, "apps": 2}}. */
  counts: Record<string, number | Record<string, number>>;
}

const countsText = (n: number | Record<string, number>): string =>
  typeof n === 'number'
    ? String(n)
    : Object.entries(n)
        .map(([kind, count]) => `${count} ${kind}`)
        .join(', ');

interface Mapping {
  id?: string;
  uuid?: string;
  name?: string;
  request?: { method?: string; url?: string; urlPath?: string; urlPattern?: string; urlPathPattern?: string };
  response?: { status?: number };
}

const readFile = (input: HTMLInputElement): Promise<string> =>
  new Promise((resolve, reject) => {
    const file = input.files?.[0];
    if (!file) return reject(new Error('Choose a JSON file first'));
    file.text().then(resolve, reject);
  });

export class ManageView {
  readonly root = h('section', { id: 'panel-manage', role: 'tabpanel', 'aria-labelledby': 'tab-manage' });
  #scenarioList = h('ul', { className: 'cards' });
  #stubList = h('ul', { className: 'cards' });
  #view = h('pre', { tabindex: 0, className: 'viewer', 'aria-label': 'Selected item' });

  constructor(
    private readonly api: Api,
    private readonly announce: (message: string) => void,
    /** Whether this server has WireMock's admin API (/__admin) for stubs. */
    private readonly stubs: boolean,
  ) {
    this.#view.hidden = true;
    this.root.append(
      h('h2', {}, 'Scenarios'),
      this.#scenarioUpload(),
      this.#scenarioList,
      h('h2', {}, 'Stubs (WireMock mappings)'),
      this.#stubUpload(),
      this.#stubList,
      this.#view,
    );
  }

  #scenarioUpload(): HTMLElement {
    const name = h('input', { id: 'scenario-name', required: true, pattern: '[A-Za-z0-9._\\-]+', autocomplete: 'off' });
    const file = h('input', { id: 'scenario-file', type: 'file', accept: 'application/json,.json' });
    const submit = async (event: Event) => {
      event.preventDefault();
      try {
        const body = await readFile(file);
        const chosen = name.value || (file.files?.[0]?.name ?? '').replace(/\.json$/, '');
        await this.api.request('PUT', `/__mockyard/scenarios/${encodeURIComponent(chosen)}`, body);
        this.announce(`Scenario ${chosen} saved`);
        await this.refresh();
      } catch (err) {
        this.announce(`Upload failed: ${(err as Error).message}`);
      }
    };
    return h(
      'form',
      { className: 'upload', onsubmit: submit },
      h('label', { for: 'scenario-name' }, 'Name'),
      name,
      h('label', { for: 'scenario-file' }, 'Scenario JSON'),
      file,
      h('button', { type: 'submit' }, 'Upload scenario'),
    );
  }

  #stubUpload(): HTMLElement {
    const file = h('input', { id: 'stub-file', type: 'file', accept: 'application/json,.json' });
    const submit = async (event: Event) => {
      event.preventDefault();
      try {
        const parsed = JSON.parse(await readFile(file)) as { mappings?: unknown[] };
        // A file of {"mappings": [...]} is an import; a single mapping is created as it is.
        if (Array.isArray(parsed.mappings)) await this.api.request('POST', '/__admin/mappings/import', parsed);
        else await this.api.request('POST', '/__admin/mappings', parsed);
        this.announce('Stub saved');
        await this.refresh();
      } catch (err) {
        this.announce(`Upload failed: ${(err as Error).message}`);
      }
    };
    return h(
      'form',
      { className: 'upload', onsubmit: submit },
      h('label', { for: 'stub-file' }, 'Mapping JSON (one mapping, or {"mappings": [...]})'),
      file,
      h('button', { type: 'submit' }, 'Upload stub'),
    );
  }

  #show(value: unknown): void {
    this.#view.hidden = false;
    this.#view.textContent = JSON.stringify(value, null, 2);
    this.#view.focus();
  }

  async #remove(path: string, label: string): Promise<void> {
    if (!window.confirm(`Delete ${label}?`)) return;
    try {
      await this.api.request('DELETE', path);
      this.announce(`${label} deleted`);
      await this.refresh();
    } catch (err) {
      this.announce(`Delete failed: ${(err as Error).message}`);
    }
  }

  async refresh(): Promise<void> {
    await Promise.all([this.#refreshScenarios(), this.#refreshStubs()]);
  }

  async #refreshScenarios(): Promise<void> {
    try {
      const list = await this.api.request<{ scenarios: ScenarioSummary[] } | ScenarioSummary[]>(
        'GET',
        '/__mockyard/scenarios',
      );
      const scenarios = Array.isArray(list) ? list : list.scenarios;
      const items = scenarios.map((s) => {
        const path = `/__mockyard/scenarios/${encodeURIComponent(s.name)}`;
        const counts = Object.entries(s.counts ?? {})
          .map(([area, n]) => `${area}: ${countsText(n)}`)
          .join('; ');
        return h(
          'li',
          {},
          h('strong', {}, s.name),
          h('span', { className: 'muted' }, ` ${counts || s.areas.join(', ')}`),
          h(
            'button',
            { type: 'button', onclick: async () => this.#show(await this.api.request('GET', path)) },
            `View ${s.name}`,
          ),
          h(
            'button',
            { type: 'button', className: 'danger', onclick: () => this.#remove(path, `scenario ${s.name}`) },
            `Delete ${s.name}`,
          ),
        );
      });
      replace(this.#scenarioList, items.length > 0 ? items : [h('li', { className: 'muted' }, 'No scenarios.')]);
    } catch (err) {
      replace(this.#scenarioList, h('li', { className: 'muted' }, `Scenarios unavailable: ${(err as Error).message}`));
    }
  }

  async #refreshStubs(): Promise<void> {
    if (!this.stubs) {
      replace(this.#stubList, h('li', { className: 'muted' }, 'This server has no stubs API (/__admin).'));
      return;
    }
    try {
      const { mappings } = await this.api.request<{ mappings: Mapping[] }>('GET', '/__admin/mappings');
      const items = mappings.map((m) => {
        const id = m.id ?? m.uuid ?? '';
        const r = m.request ?? {};
        const label =
          m.name ?? `${r.method ?? 'ANY'} ${r.url ?? r.urlPath ?? r.urlPattern ?? r.urlPathPattern ?? '(any URL)'}`;
        const path = `/__admin/mappings/${encodeURIComponent(id)}`;
        return h(
          'li',
          {},
          h('strong', {}, label),
          h('span', { className: 'muted' }, ` → ${m.response?.status ?? 200}`),
          h('button', { type: 'button', onclick: () => this.#show(m) }, `View ${label}`),
          h(
            'button',
            { type: 'button', className: 'danger', onclick: () => this.#remove(path, `stub ${label}`) },
            `Delete ${label}`,
          ),
        );
      });
      replace(this.#stubList, items.length > 0 ? items : [h('li', { className: 'muted' }, 'No stubs.')]);
    } catch (err) {
      replace(this.#stubList, h('li', { className: 'muted' }, `Stubs unavailable: ${(err as Error).message}`));
    }
  }
}
