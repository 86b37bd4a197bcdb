// The command line a new user meets: version, per-command help, the start banner and --config.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config-file.js';
import { ConfigError, resolveConfig } from '../../src/config.js';
import { packageRoot } from '../../src/paths.js';

const cli = path.join(packageRoot(), 'dist', 'bundle', 'cli.js');
const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
const tmp = mkdtempSync(path.join(tmpdir(), 'mockyard-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    timeout: 15_000,
    env: { ...process.env, MOCKYARD_LOG_LEVEL: 'warn', ...env },
  });
}

async function startCli(args: string[]): Promise<{ banner: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [cli, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MOCKYARD_LOG_LEVEL: 'warn' },
  });
  const banner = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/^ {2}dkan .*\n/m.test(out)) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  return { banner, stop };
}

describe('mockyard CLI usability', () => {
  it('prints its version', () => {
    const res = runCli(['--version']);
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe(pkg.version);
  });

  it('lists only fixture flags under `fixtures --help`', () => {
    const res = runCli(['fixtures', '--help']);
    expect(res.status).toBe(0);
    for (const flag of ['--seed', '--scale', '--data-dir', '--dkan-csv-dir', '--force', '--config'])
      expect(res.stdout).toContain(flag);
    for (const flag of ['--port', '--host', '--latency', '--admin-token', '--cors-origins'])
      expect(res.stdout).not.toContain(flag);
    expect(runCli(['--help']).stdout).toContain('--port');
  });

  it('starts with a banner that points to the docs, the fixture catalog and every area', async () => {
    const { banner, stop } = await startCli(['--port', '0']);
    try {
      const url = /ready at (http:\/\/\S+)/.exec(banner)?.[1];
      expect(url).toBeDefined();
      for (const p of ['/docs', '/__mockyard/fixtures', '/archive', '/marketcheck', '/appcenter', '/agco', '/dkan']) {
        expect(banner).toContain(`${url}${p}`);
      }
      expect((await fetch(`${url}/docs`)).status).toBe(200);
    } finally {
      expect(await stop()).toBe(0);
    }
  });

  it('reads --config; the environment and flags win over it', async () => {
    const file = path.join(tmp, 'mockyard.json');
    writeFileSync(file, JSON.stringify({ port: 0, agcoTokens: ['from-file'], dkanMaxLimit: 50, journalSize: 7 }));
    const { banner, stop } = await startCli(['--config', file, '--journal-size', '3']);
    try {
      const url = /ready at (http:\/\/\S+)/.exec(banner)![1]!;
      const agco = (token: string) =>
        fetch(`${url}/agco/api/v2/StringDefinitions`, { headers: { authorization: `Bearer ${token}` } });
      expect((await agco('from-file')).status).toBe(200);
      expect((await agco('other')).status).toBe(401);
    } finally {
      expect(await stop()).toBe(0);
    }
    expect(resolveConfig({ journalSize: '3' }, { MOCKYARD_DKAN_MAX_LIMIT: '60' }, loadConfigFile(file))).toMatchObject({
      journalSize: 3, // flag over file
      dkanMaxLimit: 60, // environment over file
      agcoTokens: ['from-file'], // file over default
      port: 0,
    });
  });

  it('names the file and the key when a config file is wrong', () => {
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ prot: 4010 }));
    expect(() => loadConfigFile(bad)).toThrow(ConfigError);
    expect(() => loadConfigFile(bad)).toThrow(/bad\.json: unknown option "prot"/);
    writeFileSync(bad, JSON.stringify({ port: 'abc' }));
    expect(() => loadConfigFile(bad)).toThrow(/bad\.json: port must be a whole number/);
    writeFileSync(bad, '{ port: 1 }');
    expect(() => loadConfigFile(bad)).toThrow(/is not valid JSON/);
    const res = runCli(['--config', path.join(tmp, 'missing.json')]);
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(/^mockyard: cannot read config file .*missing\.json: ENOENT/);
  });
});
