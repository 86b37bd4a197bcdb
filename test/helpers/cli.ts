// The built CLI (dist/bundle/cli.js) started as users start it, on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../src/paths.js';

export const cli = path.join(packageRoot(), 'dist', 'bundle', 'cli.js');

export interface Cli {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote so far (its log lines go to stdout). */
  output(): string;
  exited: Promise<{ code: number | null; at: number }>;
  stop(): Promise<void>;
}

/** The benchmark's event-loop monitor (bench/stall-monitor.ts): the server prints its longest stall as it exits. */
export const stallMonitor = ['--import', path.join(packageRoot(), 'dist', 'bench', 'stall-monitor.js')];

/** Starts `mockyard <args>` (node with `nodeArgs`) on a free port, and resolves once it prints "ready at". */
export function startCli(args: string[] = [], nodeArgs: string[] = []): Promise<Cli> {
  const child = spawn(process.execPath, [...nodeArgs, cli, '--port', '0', '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready at (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        resolve({
          child,
          url: m[1],
          output: () => out + err,
          exited,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) {
              child.kill('SIGTERM');
              const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
              await exited;
              clearTimeout(t);
            }
          },
        });
      }
    });
    void exited.then(({ code }) => reject(new Error(`mockyard exited ${code}: ${out}${err}`)));
  });
}
