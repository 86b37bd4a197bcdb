// Fixtures: per area, the identifiers, keys and tokens being served, each as a request ready to copy.
import type { Api, AreaInfo } from './api.js';
import { copy, curl, h, replace } from './dom.js';

interface Example {
  title: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
}

export class FixturesView {
  readonly root = h('section', { id: 'panel-fixtures', role: 'tabpanel', 'aria-labelledby': 'tab-fixtures' });

  constructor(
    private readonly api: Api,
    private readonly areas: AreaInfo[],
    private readonly announce: (message: string) => void,
  ) {}

  async refresh(): Promise<void> {
    try {
      const [examples, catalog] = await Promise.all([
        this.api.request<Record<string, Example[]>>('GET', '/__mockyard/fixtures/examples'),
        this.api.request<Record<string, unknown>>('GET', '/__mockyard/fixtures'),
      ]);
      replace(this.root, ...this.areas.map((area) => this.#area(area, examples[area.name] ?? [], catalog[area.name])));
    } catch (err) {
      replace(this.root, h('p', {}, `Fixtures unavailable: ${(err as Error).message}`));
    }
  }

  #area(area: AreaInfo, examples: Example[], catalog: unknown): HTMLElement {
    const base = `${location.origin}${area.prefix}`;
    return h(
      'article',
      { className: 'area' },
      h('h2', {}, `${area.letter} · ${area.title}`),
      h('p', { className: 'muted' }, 'Base URL ', h('code', {}, base)),
      h(
        'ul',
        { className: 'examples' },
        ...examples.map((ex) => {
          const command = curl(ex.method, `${base}${ex.path}`, ex.headers ?? {});
          return h(
            'li',
            {},
            h('span', {}, ex.title),
            h('code', {}, command),
            h('button', { type: 'button', onclick: () => void copy(command, this.announce) }, `Copy: ${ex.title}`),
          );
        }),
      ),
      h(
        'details',
        {},
        h('summary', {}, `All ${area.name} identifiers, keys and tokens`),
        h('pre', { tabindex: 0 }, JSON.stringify(catalog, null, 2)),
      ),
    );
  }
}
