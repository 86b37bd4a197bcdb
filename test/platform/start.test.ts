// The server as users start it: programmatically, and through the CLI as a real process.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMockyard } from '../../src/index.js';
import { packageRoot } from '../../src/paths.js';

// The command users run: package.json's bin.
const cli = path.join(packageRoot(), 'dist', 'bundle', 'cli.js');

function runCli(args: string[], timeoutMs = 15_000) {
  return spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, MOCKYARD_LOG_LEVEL: 'warn' },
  });
}

describe('startMockyard', () => {
  it('starts on a free port, answers, and closes', async () => {
    const { url, close } = await startMockyard();
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/__mockyard/health`);
      expect(res.status).toBe(200);
    } finally {
      await close();
    }
    await expect(fetch(`${url}/__mockyard/health`)).rejects.toThrow();
  });

  it('serves each area at the root of its own free port with areaPorts 0', async () => {
    const running = await startMockyard({ areaPorts: 0 });
    try {
      expect(Object.keys(running.areaUrls)).toEqual(['archive', 'marketcheck', 'appcenter', 'agco', 'dkan']);
      const ports = Object.values(running.areaUrls).map((u) => Number(new URL(u).port));
      expect(new Set(ports).size).toBe(5);
      expect(ports).not.toContain(Number(new URL(running.url).port));
      const health = await fetch(`${running.areaUrls.dkan}/__mockyard/health`);
      expect(health.status).toBe(200);
      const res = await fetch(`${running.areaUrls.marketcheck}/popular/cars?api_key=k&car_type=new`);
      expect(res.status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it('gives a base URL for every area without area ports', async () => {
    const running = await startMockyard();
    try {
      expect(running.areaUrls).toEqual({
        archive: `${running.url}/archive`,
        marketcheck: `${running.url}/marketcheck`,
        appcenter: `${running.url}/appcenter`,
        agco: `${running.url}/agco`,
        dkan: `${running.url}/dkan`,
      });
      const res = await fetch(`${running.areaUrls.marketcheck}/popular/cars?api_key=k&car_type=new`);
      expect(res.status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it('rejects unknown options', async () => {
    await expect(startMockyard({ nope: 1 } as never)).rejects.toThrow(/unknown option "nope"/);
  });
});

describe('mockyard CLI', () => {
  it('prints the URL it picked for port 0 and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli, '--port', '0', '--log-level', 'warn'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /ready at (http:\/\/\S+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect((await fetch(`${url}/__mockyard/health`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('stops with one line and exit code 2 on an invalid option value', () => {
    const res = runCli(['--port', 'abc']);
    expect(res.status).toBe(2);
    expect(res.stderr.trim()).toBe('mockyard: port must be a whole number from 0 to 65535, got "abc"');
  });

  it('says so when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const res = runCli(['--port', String(port)]);
      expect(res.status).toBe(2);
      expect(res.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it('builds fixtures on request and reports an up-to-date database', () => {
    const res = runCli(['fixtures']);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/is up to date|built/);
  });
});
