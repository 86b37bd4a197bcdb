// Where the executor's child process code is: beside the bundle, in tsc's output, or compiled from source.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileScriptSync } from '../worker-script.js';

/**
 * The bundle has query-child.js beside its chunks, tsc's output has it at dist/src/query-child.js. Run from
 * TypeScript sources (tests), it is compiled once per process (compileScriptSync; a pool asks once).
 */
export function queryChildScript(): string {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(dir, 'query-child.js'), path.join(dir, '..', '..', 'query-child.js')]) {
    if (existsSync(candidate)) return candidate;
  }
  const source = path.join(dir, '..', '..', 'query-child.ts');
  if (!existsSync(source)) throw new Error(`mockyard: no query process script next to ${dir}`);
  return compileScriptSync('query-child', source);
}
