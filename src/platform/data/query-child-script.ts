// Where the executor's child process code is: beside the bundle, in tsc's output, or compiled from source.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptFileSync } from '../worker-script.js';

/**
 * The bundle has query-child.js beside its chunks, tsc's output has it at dist/src/query-child.js. Run from
 * TypeScript sources (tests), it is compiled once per process (a pool asks once).
 */
export function queryChildScript(): string {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const src = path.join(dir, '..', '..');
  return scriptFileSync(
    'query-child',
    [path.join(dir, 'query-child.js'), path.join(src, 'query-child.js')],
    path.join(src, 'query-child.ts'),
  );
}
