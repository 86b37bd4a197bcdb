// The command line with the server command (src/cli.ts loads it for everything but the tool subcommands).
import closeWithGrace from 'close-with-grace';
import type { AreaDefinition } from './platform/area.js';
import { addOptions, configFrom, makeProgram, progress, runProgram, version } from './cli-program.js';
import { watchParent } from './parent-watch.js';
// The server and the areas are imported statically: started from a dynamic import's continuation instead,
// the server's every answer cost about 3 µs more CPU, in Node's own process.nextTick (measured with
// --cpu-prof: 250-290 ms against 20-45 ms per 3 s of cached answers).
import { AREAS } from './areas/index.js';
import { type RunningMockyard, startServer } from './server.js';

/** What a person starting mockyard wants next: where the docs, the tokens and each area are. */
export function banner(running: RunningMockyard, mockyardVersion: string, areas: readonly AreaDefinition[]): string {
  const { url } = running;
  const lines = [
    `mockyard ${mockyardVersion} ready at ${url}`,
    `  docs        ${url}/docs  (Swagger UI; the document is ${url}/openapi.json)`,
    `  fixtures    ${url}/__mockyard/fixtures  (identifiers, keys and tokens to try)`,
    `  health      ${url}/__mockyard/health`,
    `  dashboard   ${url}/__mockyard/`,
  ];
  for (const area of areas) {
    const shared = `${url}${area.prefix}`;
    const own = running.areaUrls[area.name];
    lines.push(`  ${area.name.padEnd(11)} ${shared}${own !== shared ? `  and ${own}` : ''}  (for ${area.upstream})`);
  }
  if (running.tlsUrl)
    lines.push(`  https       ${running.tlsUrl}  (CA certificate ${running.caCertPath}; see \`mockyard ca\`)`);
  return `${lines.join('\n')}\n`;
}

const program = makeProgram();

addOptions(program).action(async (flags: Record<string, unknown>) => {
  const config = configFrom(flags);
  const running = await startServer(config, progress);
  process.stdout.write(banner(running, version(), AREAS));
  let closing = false;
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    closing = true;
    if (err) running.app.log.error({ err }, 'closing after an error');
    else running.app.log.info({ signal }, 'shutting down');
    await running.close();
  });
  watchParent(() => {
    // npm forwards the signal that stopped it, so shutdown may have begun already: one signal, one message.
    if (closing) return;
    running.app.log.info('npm or npx above this process has gone; shutting down');
    process.kill(process.pid, 'SIGTERM');
  });
});

await runProgram(program);
