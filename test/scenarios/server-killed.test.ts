// A server killed outright (SIGKILL) in the middle of a scenario build: its builder process ends too, and
// leaves no folder behind. Runs the built CLI (dist/bundle/cli.js), as a user's server runs.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startCliProcess } from '../helpers/cli.js';
import { longBuildBody } from './helpers.js';

const start = () => startCliProcess();

/** A process's parent and state from /proc, or null once it is gone (a zombie counts as gone: it runs no more). */
function procStat(pid: number): { ppid: number; state: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": the name may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? null : { ppid: Number(ppid), state: state! };
  } catch {
    return null;
  }
}

/** The scenario builder process started by `parent`, if there is one. */
function builderOf(parent: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || procStat(pid)?.ppid !== parent) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('build-worker')) return pid;
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/** Polls `check` every 20 ms until it gives a value; fails the test past `ms`. */
async function until<T>(what: string, check: () => T | undefined | false, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}

const tmpEntries = (prefix: string) => readdirSync(os.tmpdir()).filter((f) => f.startsWith(prefix));

describe.skipIf(process.platform !== 'linux')('a server killed in the middle of a scenario build', () => {
  let server: ChildProcess | undefined;
  let builder: number | undefined;
  afterAll(() => {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    // A builder outliving its server is what this test is about: it must not outlive the test.
    if (builder !== undefined && procStat(builder)) process.kill(builder, 'SIGKILL');
  });

  it('takes its builder process and the build folder with it, within a few seconds', { timeout: 60_000 }, async () => {
    const started = await start();
    server = started.child;
    const serverPid = server.pid!;
    const exited = new Promise<void>((resolve) => server!.once('exit', () => resolve()));
    const name = `orphan-${process.pid}`;
    // A build of seconds, killed as soon as it is under way.
    const body = longBuildBody();
    const put = fetch(`${started.url}/__mockyard/scenarios/${name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body,
    }).catch(() => undefined);

    builder = await until('the builder process starts', () => builderOf(serverPid), 20_000);
    // Building: its folder is there, and the body file is gone (the builder removes it once read).
    await until('the build has a folder', () => tmpEntries(`mockyard-scenario-${name}-`).length > 0, 20_000);
    await until(
      'the builder has read the body',
      () => tmpEntries(`mockyard-scenario-body-${serverPid}-`).length === 0,
      20_000,
    );
    server.kill('SIGKILL');
    await exited;
    const killedAt = Date.now();

    await until('the builder ends', () => procStat(builder!) === null, 5000);
    expect(Date.now() - killedAt).toBeLessThan(5000);
    await until('the build folder goes', () => tmpEntries(`mockyard-scenario-${name}-`).length === 0, 5000);
    await put;
  });
});
