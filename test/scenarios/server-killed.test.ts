// A server killed outright (SIGKILL) in the middle of a scenario build: its builder process ends too, and
// leaves no folder behind. Runs the built CLI (dist/bundle/cli.js), as a user's server runs.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';
import { ScenarioBodyChecker, parseScenarioText } from '../../src/scenarios/build.js';
import { dkanRecords } from '../../src/scenarios/dkan.js';
import { longBuildBody } from './helpers.js';

const start = () => startCli();

/** A process's parent, state and CPU time (ms) from /proc, or null once it is gone (a zombie runs no more). */
function procStat(pid: number): { ppid: number; cpuMs: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": the name may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of proc_pid_stat(5), in ticks of 10 ms.
    return fields[0] === 'Z'
      ? null
      : { ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
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

/**
 * The CPU time (ms) this process takes for what a builder does before its build's first turn, on the same body:
 * the parse, the check and the DKAN records, one synchronous run in which no event (a server gone) is heard.
 */
function beforeFirstTurn(body: string): number {
  const since = process.cpuUsage();
  dkanRecords(new ScenarioBodyChecker().check(parseScenarioText(body)).dkan!);
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
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

  it('takes its builder process and the build folder with it, without finishing the build', {
    timeout: 60_000,
  }, async () => {
    const started = await start();
    server = started.child;
    const serverPid = server.pid!;
    const exited = new Promise<void>((resolve) => server!.once('exit', () => resolve()));
    // The server's output reaches this test through a pipe that its processes inherit (the builder's and the
    // query processes' stdio): it closes once the last of them has ended.
    const outputClosed = new Promise<void>((resolve) => server!.stdout!.once('close', () => resolve()));
    const name = `orphan-${process.pid}`;
    // A build of seconds of CPU, killed as soon as the builder has read the body.
    const body = longBuildBody();
    const put = fetch(`${started.url}/__mockyard/scenarios/${name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body,
    }).catch(() => undefined);

    builder = await until(() => builderOf(serverPid));
    // Building: its folder is there, and the body file is gone (the builder removes it once read).
    await until(() => tmpEntries(`mockyard-scenario-${name}-`).length > 0);
    await until(() => tmpEntries(`mockyard-scenario-body-${serverPid}-`).length === 0);
    const firstTurnMs = beforeFirstTurn(body);
    const cpuAtKill = procStat(builder)!.cpuMs;
    let cpuLastSeen = cpuAtKill;
    server.kill('SIGKILL');
    await exited;
    await until(() => {
      const stat = procStat(builder!);
      if (stat) cpuLastSeen = stat.cpuMs;
      return stat === null;
    });
    // CPU time, not the clock, so a busy machine changes nothing. The builder hears that its server is gone at
    // its first turn, after the body is parsed and checked (about 0.7 s of CPU here, measured again above for
    // this machine): the rest of the build, about 4 s more, is not done.
    expect(cpuLastSeen - cpuAtKill).toBeLessThan(2 * firstTurnMs + 200);
    await outputClosed;
    expect(tmpEntries(`mockyard-scenario-${name}-`)).toEqual([]);
    await put;
  });
});
