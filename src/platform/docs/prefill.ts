// What Swagger UI prefills: each area's `docs` values, written into the served document as OpenAPI
// `example`s, so "Try it out" then "Execute" answers 2xx with the data being served.
import type { AreaDefinition, OperationExample } from '../area.js';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../data/fixture-store.js';

export interface Prefill {
  operations: Record<string, OperationExample>;
  /** Security scheme name to the value Swagger UI authorizes with on load. */
  credentials: Record<string, string>;
}

/** mockyard's own operations: a scenario and control values that the endpoints accept. */
const SCENARIO = 'docs-example';
const OWN: Record<string, OperationExample> = {
  mockyard_scenarios_put: {
    parameters: { name: SCENARIO },
    body: { appcenter: { users: [{ name: 'docs-user', token: 'docs-example-token' }] } },
  },
  mockyard_scenarios_get: { parameters: { name: SCENARIO } },
  mockyard_scenarios_delete: { parameters: { name: SCENARIO } },
  mockyard_controls_set: { parameters: { area: 'dkan' }, body: { latency: [0, 0], errorRate: 0, fault: null } },
  mockyard_controls_clear: { parameters: { area: 'dkan' } },
  mockyard_requests_list: { parameters: { limit: 10 } },
  mockyard_request_get: { parameters: { id: 1 } },
  mockyard_request_near_misses: { parameters: { id: 1 } },
};

export function prefillOf(areas: readonly AreaDefinition[], store: FixtureStore, config: Config): Prefill {
  const out: Prefill = { operations: { ...OWN }, credentials: {} };
  for (const area of areas) {
    const docs = area.docs?.(store, config);
    Object.assign(out.operations, docs?.operations);
    Object.assign(out.credentials, docs?.credentials);
  }
  if (config.adminToken) out.credentials.mockyardAdmin = config.adminToken;
  return out;
}

interface Operation {
  operationId?: string;
  parameters?: { name: string; example?: unknown; schema?: { type?: string; items?: unknown } }[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Writes the prefilled values into the document's operations as examples. */
export function applyPrefill(doc: { paths?: Record<string, Record<string, unknown>> }, prefill: Prefill): void {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, value] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = value as Operation;
      const example = op.operationId ? prefill.operations[op.operationId] : undefined;
      for (const param of op.parameters ?? []) {
        const given = example?.parameters?.[param.name];
        if (given !== undefined) param.example = given;
        // An array without an example gets a sample item made from its schema: send none instead.
        else if (param.schema?.type === 'array' && example?.parameters && param.name in example.parameters)
          param.example = [];
      }
      const json = op.requestBody?.content?.['application/json'];
      if (json && example?.body !== undefined) json.example = example.body;
    }
  }
}

/**
 * Swagger UI renders descriptions as Markdown and drops what looks like an HTML tag, so a placeholder
 * such as <field> outside a code span is written as an entity to stay visible.
 */
export function keepPlaceholders(node: unknown): void {
  if (Array.isArray(node)) for (const child of node) keepPlaceholders(child);
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(record)) {
      if ((key === 'description' || key === 'summary') && typeof value === 'string') record[key] = escapeTags(value);
      else keepPlaceholders(value);
    }
  }
}

const escapeTags = (text: string): string =>
  text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/<([^<>\s][^<>]*)>/g, '&lt;$1&gt;')))
    .join('');
