// Controls: latency, error rate and fault per area, as PUT /__mockyard/controls/{area} sets them.
import type { Api, AreaInfo } from './api.js';
import { h, replace } from './dom.js';

interface AreaControls {
  latency: [number, number] | null;
  errorRate: number;
  fault: string | null;
  overridden: boolean;
}

interface ControlsState {
  serverWide: { latency: [number, number] | null; errorRate: number };
  areas: Record<string, AreaControls>;
}

const FAULTS = ['', 'slow', 'malformed', 'reset', 'empty'];

export class ControlsView {
  readonly root = h('section', { id: 'panel-controls', role: 'tabpanel', 'aria-labelledby': 'tab-controls' });

  constructor(
    private readonly api: Api,
    private readonly areas: AreaInfo[],
    private readonly announce: (message: string) => void,
  ) {}

  async refresh(): Promise<void> {
    try {
      this.#render(await this.api.request<ControlsState>('GET', '/__mockyard/controls'));
    } catch (err) {
      replace(this.root, h('p', {}, `Controls unavailable: ${(err as Error).message}`));
    }
  }

  #render(state: ControlsState): void {
    const wide = state.serverWide;
    replace(
      this.root,
      h(
        'p',
        { className: 'muted' },
        `Server-wide: latency ${wide.latency ? wide.latency.join('–') : 'none'} ms, error rate ${wide.errorRate}%.`,
      ),
      ...this.areas.map((area) => this.#form(area, state.areas[area.name])),
    );
  }

  #form(area: AreaInfo, c: AreaControls | undefined): HTMLElement {
    const id = (s: string) => `ctl-${area.name}-${s}`;
    const low = h('input', { id: id('low'), type: 'number', min: 0, max: 60000, value: c?.latency?.[0] ?? 0 });
    const high = h('input', { id: id('high'), type: 'number', min: 0, max: 60000, value: c?.latency?.[1] ?? 0 });
    const rate = h('input', {
      id: id('rate'),
      type: 'number',
      min: 0,
      max: 100,
      step: 'any',
      value: c?.errorRate ?? 0,
    });
    const fault = h(
      'select',
      { id: id('fault') },
      ...FAULTS.map((f) => h('option', { value: f, selected: (c?.fault ?? '') === f }, f || 'none')),
    );
    const active = [
      c?.latency ? `latency ${c.latency.join('–')} ms` : '',
      c && c.errorRate > 0 ? `error rate ${c.errorRate}%` : '',
      c?.fault ? `fault ${c.fault}` : '',
    ].filter(Boolean);
    const apply = async (event: Event) => {
      event.preventDefault();
      const lo = Number(low.value);
      const hi = Math.max(lo, Number(high.value));
      try {
        await this.api.request('PUT', `/__mockyard/controls/${area.name}`, {
          latency: hi > 0 ? [lo, hi] : null,
          errorRate: Number(rate.value),
          fault: fault.value || null,
        });
        this.announce(`Controls for ${area.name} applied`);
        await this.refresh();
      } catch (err) {
        this.announce(`Could not apply: ${(err as Error).message}`);
      }
    };
    const reset = async () => {
      await this.api.request('DELETE', `/__mockyard/controls/${area.name}`);
      this.announce(`Controls for ${area.name} back to the server-wide flags`);
      await this.refresh();
    };
    return h(
      'form',
      { className: 'controls', onsubmit: apply, 'aria-label': `Controls for ${area.name}` },
      h(
        'h2',
        {},
        area.name,
        ' ',
        h(
          'span',
          { className: active.length > 0 ? 'badge active' : 'badge' },
          active.length > 0 ? `active: ${active.join(', ')}` : 'no control in play',
        ),
      ),
      h('label', { for: id('low') }, 'Latency from (ms)'),
      low,
      h('label', { for: id('high') }, 'to (ms)'),
      high,
      h('label', { for: id('rate') }, 'Error rate (%)'),
      rate,
      h('label', { for: id('fault') }, 'Fault'),
      fault,
      h('button', { type: 'submit' }, `Apply to ${area.name}`),
      c?.overridden ? h('button', { type: 'button', onclick: reset }, `Reset ${area.name}`) : null,
    );
  }
}
