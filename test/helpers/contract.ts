// Checks a response (status, content type, body) against the real service's contract for that operation.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const CONTRACTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'contracts');

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  responses: Record<string, ResponseObject>;
}
interface Contract {
  paths: Record<string, Record<string, Operation>>;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

/** operationId -> where it lives, over all contracts in test/contracts. */
const operations = new Map<string, { contractId: string; pointer: string; op: Operation }>();
for (const file of readdirSync(CONTRACTS_DIR).filter((f) => f.endsWith('.openapi.json'))) {
  const contractId = `contract:${file}`;
  const doc = JSON.parse(readFileSync(path.join(CONTRACTS_DIR, file), 'utf8')) as Contract;
  ajv.addSchema(doc as object, contractId);
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op && typeof op === 'object' && op.operationId) {
        const pointer = `/paths/${p.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;
        operations.set(op.operationId, { contractId, pointer, op });
      }
    }
  }
}

const validators = new Map<string, ValidateFunction>();
function validatorFor(ref: string): ValidateFunction {
  let v = validators.get(ref);
  if (!v) {
    v = ajv.compile({ $ref: ref });
    validators.set(ref, v);
  }
  return v;
}

function mediaMatches(declared: string, actual: string): boolean {
  if (declared === '*/*') return true;
  if (declared.endsWith('/*')) return actual.startsWith(declared.slice(0, -1));
  return declared === actual;
}

export interface ResponseLike {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body?: string;
  payload?: string;
}

/** Whether one of the real services' contracts has this operation (mockyard adds a few of its own). */
export function hasContract(operationId: string): boolean {
  return operations.has(operationId);
}

/** Problems of a response against the contract; empty when it conforms. */
export function contractProblems(operationId: string, res: ResponseLike): string[] {
  const found = operations.get(operationId);
  if (!found) return [`no operation ${operationId} in the contracts`];
  const status = String(res.statusCode);
  const key = [status, `${status[0]}XX`, 'default'].find((k) => found.op.responses[k] !== undefined);
  if (!key)
    return [
      `status ${status} is not documented for ${operationId} (documented: ${Object.keys(found.op.responses).join(', ')})`,
    ];
  const response = found.op.responses[key]!;
  if (!response.content) return [];
  const contentType = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  const declared = Object.keys(response.content);
  const media = declared.find((d) => mediaMatches(d, contentType));
  if (!media)
    return [`content type "${contentType}" is not one of ${declared.join(', ')} for ${operationId} ${status}`];
  if (!response.content[media]!.schema || !/json/.test(contentType)) return [];
  const text = res.body ?? res.payload ?? '';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`body is not JSON: ${text.slice(0, 200)}`];
  }
  const pointer = `${found.pointer}/responses/${key}/content/${media.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`;
  const validate = validatorFor(`${found.contractId}#${pointer}`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

/** Fails the test with every problem listed when the response does not conform. */
export function expectContract(operationId: string, res: ResponseLike): void {
  expect(contractProblems(operationId, res), `${operationId} ${res.statusCode} against its contract`).toEqual([]);
}
