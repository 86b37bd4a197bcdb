#!/usr/bin/env node
// The `mockyard` command: serve (default) or build the fixture database.
import { Command, CommanderError, Option } from 'commander';
import closeWithGrace from 'close-with-grace';
import { ConfigError, OPTIONS, defaultText, renderOptionsTable, resolveConfig, type ConfigInput } from './config.js';
import { StartError, ensureFixtures, startServer } from './server.js';

const progress = (message: string) => process.stderr.write(`mockyard: ${message}\n`);

function fail(message: string, code = 2): never {
  process.stderr.write(`mockyard: ${message}\n`);
  process.exit(code);
}

function addOptions(command: Command): Command {
  for (const spec of OPTIONS) {
    const option = new Option(spec.flag, `${spec.description} (env ${spec.env}, default ${defaultText(spec)})`);
    command.addOption(option);
  }
  return command;
}

function configFrom(flags: Record<string, unknown>) {
  const input: ConfigInput = {};
  for (const spec of OPTIONS) {
    const value = flags[spec.key];
    if (value === undefined) continue;
    (input as Record<string, unknown>)[spec.key] = value === true ? 'true' : String(value);
  }
  return resolveConfig(input);
}

const program = new Command('mockyard')
  .description('Mock server for Internet Archive, MarketCheck, App Center, AGCO ATS and DKAN clients')
  .showHelpAfterError()
  // Options after `fixtures` belong to it (`mockyard fixtures --scale 10`), not to the server command.
  .enablePositionalOptions()
  .exitOverride();

addOptions(program).action(async (flags: Record<string, unknown>) => {
  const config = configFrom(flags);
  const running = await startServer(config, progress);
  process.stdout.write(`mockyard ready at ${running.url}\n`);
  for (const [area, url] of Object.entries(running.areaUrls)) process.stdout.write(`  ${area} at ${url}\n`);
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) running.app.log.error({ err }, 'closing after an error');
    else running.app.log.info({ signal }, 'shutting down');
    await running.close();
  });
});

addOptions(program.command('fixtures').description('Build the fixture database now (normally done on start when missing or stale)'))
  .option('--force', 'rebuild even when the database is up to date')
  .addOption(new Option('--keep-files', "keep other generations' files-* folders (a watching server deletes them)").hideHelp())
  .addOption(new Option('--fresh-builder', 'compile the builder from fixtures/*.ts when present').hideHelp())
  .action(async (flags: Record<string, unknown>) => {
    const { force, keepFiles, freshBuilder, ...rest } = flags;
    const config = configFrom(rest);
    const result = await ensureFixtures(config, progress, force === true, { keepOtherFiles: keepFiles === true, freshBuilder: freshBuilder === true });
    process.stdout.write(
      result.built
        ? `built ${result.dbPath} in ${result.seconds.toFixed(2)}s (fingerprint ${result.fingerprint.slice(0, 12)})\n`
        : `${result.dbPath} is up to date (fingerprint ${result.fingerprint.slice(0, 12)})\n`,
    );
  });

program
  .command('options-table', { hidden: true })
  .description('Print the README option table')
  .action(() => {
    process.stdout.write(`${renderOptionsTable()}\n`);
  });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof ConfigError || err instanceof StartError) fail(err.message);
  throw err;
}
