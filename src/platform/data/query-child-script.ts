// Where the executor's child process code is: beside the bundle, in tsc's output, or compiled from source.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptFileSync } from '../worker-script.js';
import { QUERY_PROCESS_FLAGS, childEnv } from './child-env.js';

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

/** Starts a query process that does not keep the server's process alive while it is idle. */
export function forkQueryProcess(script: string): ChildProcess {
  const child = fork(script, [], {
    serialization: 'advanced',
    // Not the server's own flags (a test runner's, an inspector's): the query process's (child-env.ts).
    execArgv: [...QUERY_PROCESS_FLAGS],
    env: childEnv(process.env),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.unref();
  child.channel?.unref();
  return child;
}
