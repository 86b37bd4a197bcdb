// The parts of a request's detail that explain its answer: which stub answered, which stubs nearly
// matched (WireMock's near misses), and what a refusal's own error body and mockyard's hint say.
import type { Api, JournalEntry, JournalSummary } from './api.js';
import { h } from './dom.js';

interface NearMiss {
  stubMapping: { id?: string; name?: string; request?: Record<string, unknown> };
  matchResult: { distance: number };
  misses: string[];
}

/** How a row names the stub that answered: the mapping's name, else its id. */
export const stubLabel = (e: JournalSummary): string => (e.stub ? (e.stub.name ?? e.stub.id) : '');

const mappingLabel = (m: NearMiss['stubMapping']): string => {
  if (m.name) return m.name;
  const r = m.request ?? {};
  const url = r.url ?? r.urlPath ?? r.urlPattern ?? r.urlPathPattern ?? '(any URL)';
  return `${String(r.method ?? 'ANY')} ${String(url)}`;
};

const MESSAGE_KEY = /^(?:message|msg|usermessage|developermessage|detail|error_description|error|title|description)$/i;

/**
 * What an error body says in words, whatever the service's shape: DKAN's message and data.message, the
 * Archive's error.msg, AGCO's UserMessage, App Center's message, WireMock's errors[].detail.
 */
export function errorMessages(body: string | null | undefined): string[] {
  if (!body) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const found: string[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 3 || found.length >= 4 || value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && MESSAGE_KEY.test(key) && v.trim() && !found.includes(v)) found.push(v);
      else walk(v, depth + 1);
    }
  };
  walk(parsed, 0);
  return found;
}

/** The stub that answered, with its mapping when the admin API still has it. */
export async function stubPart(api: Api, e: JournalEntry, stubsApi: boolean): Promise<HTMLElement[]> {
  if (!e.stub) return [];
  const out: HTMLElement[] = [
    h('h3', {}, 'Stub'),
    h('p', {}, `Answered by the stub ${e.stub.name ? `“${e.stub.name}” ` : ''}(id ${e.stub.id}).`),
  ];
  if (!stubsApi) return out;
  try {
    const mapping = await api.request('GET', `/__admin/mappings/${encodeURIComponent(e.stub.id)}`);
    out.push(h('pre', { tabindex: 0, 'aria-label': 'Stub mapping' }, JSON.stringify(mapping, null, 2)));
  } catch {
    out.push(h('p', { className: 'muted' }, 'The mapping is gone (deleted, or a scenario’s own stub).'));
  }
  return out;
}

function why(e: JournalEntry): string {
  if (e.status === null) {
    return e.fault
      ? `The connection was dropped on purpose (fault ${e.fault}).`
      : 'No answer was sent: the client went away first.';
  }
  if (e.forced)
    return 'The status was simulated (Prefer: code, the error rate or a control), not caused by the request.';
  if (e.operationId === null) return `No ${e.area ?? ''} operation has this path, and no stub matched it.`;
  return `The ${e.area} operation ${e.operationId} refused the request.`;
}

/** Why a request failed: the cause, what the answer's error body and mockyard's hint say. */
export function failurePart(e: JournalEntry): HTMLElement[] {
  if (e.status !== null && e.status < 400) return [];
  const out: HTMLElement[] = [h('h3', {}, 'Why'), h('p', {}, why(e))];
  const messages = e.forced ? [] : errorMessages(e.responseBody);
  if (messages.length > 0) {
    out.push(
      h('p', {}, 'The answer says:'),
      h('ul', { className: 'messages', 'aria-label': 'Error messages' }, ...messages.map((m) => h('li', {}, m))),
    );
  }
  const hint = e.responseHeaders?.['mockyard-hint'];
  if (hint) out.push(h('p', {}, `mockyard’s hint: ${Array.isArray(hint) ? hint.join(' ') : hint}`));
  return out;
}

/** The stubs nearest to a request no stub answered, and what each did not match. */
export async function nearMissPart(api: Api, e: JournalEntry, stubsApi: boolean): Promise<HTMLElement[]> {
  if (!stubsApi || e.stub) return [];
  let misses: NearMiss[];
  try {
    misses = (await api.request<{ nearMisses: NearMiss[] }>('GET', `/__mockyard/requests/${e.id}/near-misses`))
      .nearMisses;
  } catch {
    return []; // Gone from the journal since.
  }
  if (misses.length === 0) return [];
  return [
    h('h3', {}, 'Nearest stubs'),
    h('p', { className: 'muted' }, 'No stub answered this request. The closest mappings, and what each did not match:'),
    h(
      'ol',
      { className: 'near-misses', 'aria-label': 'Nearest stubs' },
      ...misses.map((m) =>
        h(
          'li',
          {},
          h('strong', {}, mappingLabel(m.stubMapping)),
          h(
            'span',
            {},
            ` — distance ${m.matchResult.distance.toFixed(2)}`,
            m.misses.length > 0 ? ` — did not match: ${m.misses.join(', ')}` : '',
          ),
          h(
            'details',
            {},
            h('summary', {}, 'Mapping'),
            h('pre', { tabindex: 0 }, JSON.stringify(m.stubMapping, null, 2)),
          ),
        ),
      ),
    ),
  ];
}
