// `npm start` as users run it: the launcher builds only when needed and a kill of npm stops the server.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { until } from '../helpers/wait.js';

const root = packageRoot();

function waitForUrl(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready at (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** Resolves once the server refuses connections (a server that never stops fails by the test's timeout). */
const refused = (url: string) =>
  until(() =>
    fetch(`${url}/__mockyard/health`).then(
      (res) => res.arrayBuffer().then(() => false),
      () => true,
    ),
  );

describe('npm start', () => {
  it('serves the bundle, and SIGTERM to the npm process stops the server', async () => {
    const child = spawn('npm', ['start', '--silent', '--', '--port', '0', '--log-level', 'warn'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await waitForUrl(child);
    expect((await fetch(`${url}/__mockyard/health`)).status).toBe(200);
    child.kill('SIGTERM');
    // npm's `sh -c` dies without passing the signal on; the server must notice and close anyway.
    expect(await refused(url)).toBe(true);
  });
});

describe('scripts/start.mjs', () => {
  // A miniature package: the real launcher, one source, and a "bundle" script that writes a CLI stub.
  function miniPackage() {
    const dir = mkdtempSync(path.join(tmpdir(), 'mockyard-start-'));
    mkdirSync(path.join(dir, 'scripts'));
    mkdirSync(path.join(dir, 'src'));
    copyFileSync(path.join(root, 'scripts', 'start.mjs'), path.join(dir, 'scripts', 'start.mjs'));
    writeFileSync(path.join(dir, 'src', 'a.ts'), 'export {};\n');
    const stub =
      "require('fs').mkdirSync('dist/bundle',{recursive:true});require('fs').writeFileSync('dist/bundle/cli.js','console.log(\"cli ran\", process.argv.slice(2).join(\" \"))')";
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'mini', private: true, scripts: { bundle: `node -e "${stub.replace(/"/g, '\\"')}"` } }),
    );
    return dir;
  }
  const run = (dir: string) =>
    spawnSync(process.execPath, [path.join(dir, 'scripts', 'start.mjs'), '--port', '7'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, npm_execpath: '' },
    });

  it('builds when there is no bundle or a source is newer, and only then', () => {
    const dir = miniPackage();
    try {
      const first = run(dir);
      expect(first.status).toBe(0);
      expect(first.stderr).toContain('no build yet; building');
      expect(first.stdout).toContain('cli ran --port 7');

      const again = run(dir);
      expect(again.stderr).not.toContain('building');
      expect(again.stdout).toContain('cli ran --port 7');

      const later = new Date(Date.now() + 60_000);
      utimesSync(path.join(dir, 'src', 'a.ts'), later, later);
      const stale = run(dir);
      expect(stale.stderr).toContain('sources changed since the last build; building');
      expect(stale.stdout).toContain('cli ran --port 7');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
