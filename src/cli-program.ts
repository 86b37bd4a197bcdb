// The command line's program: options, the subcommands other than the server, and how errors end the
// process. src/cli-main.ts adds the server command to it; src/cli.ts runs the tool subcommands on it alone,
// without loading the server and the areas (`mockyard fixtures` starts building about 0.1 s sooner).
import { Command, CommanderError, Option } from 'commander';
import v8 from 'node:v8';
import {
  ConfigError,
  OPTIONS,
  caDirOf,
  defaultText,
  renderOptionsTable,
  resolveConfig,
  type Config,
  type ConfigInput,
} from './config.js';
import { loadConfigFile } from './config-file.js';
import { packageVersion } from './paths.js';
import { trustInstructions } from './platform/hosts/trust.js';
import { StartError, ensureFixtures } from './ensure-fixtures.js';

/** The subcommands this module runs; src/cli.ts loads the server only for the others. */
export const TOOL_COMMANDS: readonly string[] = ['fixtures', 'ca', 'options-table'];

export const progress = (message: string) => process.stderr.write(`mockyard: ${message}\n`);

function fail(message: string, code = 2): never {
  process.stderr.write(`mockyard: ${message}\n`);
  process.exit(code);
}

/** The options that decide what the fixture database holds; the only ones `mockyard fixtures` takes. */
const FIXTURE_OPTIONS: readonly (keyof Config)[] = ['dataDir', 'seed', 'scale', 'dkanCsvDir'];

export function addOptions(command: Command, keys?: readonly (keyof Config)[]): Command {
  for (const spec of OPTIONS) {
    if (keys && !keys.includes(spec.key)) continue;
    command.addOption(new Option(spec.flag, `${spec.description} (env ${spec.env}, default ${defaultText(spec)})`));
  }
  command.addOption(
    new Option(
      '--config <file>',
      'JSON file whose keys are option names, e.g. {"port": 4010, "seed": 7}; flags and environment win over it (env MOCKYARD_CONFIG)',
    ),
  );
  return command;
}

export function configFrom(flags: Record<string, unknown>): Config {
  const input: ConfigInput = {};
  for (const spec of OPTIONS) {
    const value = flags[spec.key];
    if (value === undefined) continue;
    (input as Record<string, unknown>)[spec.key] = value === true ? 'true' : String(value);
  }
  const file = typeof flags.config === 'string' ? flags.config : process.env.MOCKYARD_CONFIG;
  return resolveConfig(input, process.env, file ? loadConfigFile(file) : {});
}

export const version = packageVersion;

/**
 * A fixture build is a batch job: its nursery may grow again (V8's default factor), which the server
 * command keeps from happening (src/cli.ts).
 */
function letYoungGenerationGrow(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=2');
}

/**
 * The program with every subcommand but the server's: the caller adds the default (server) command's
 * options and action, or none when only a subcommand runs.
 */
export function makeProgram(): Command {
  const program = new Command('mockyard')
    .description('Mock server for Internet Archive, MarketCheck, App Center, AGCO ATS and DKAN clients')
    .version(version(), '-V, --version', 'print the version and exit')
    // "did you mean" and one pointer, not 130 lines of help after a typo.
    .showHelpAfterError('(mockyard --help lists every option)')
    // Options after `fixtures` belong to it (`mockyard fixtures --scale 10`), not to the server command.
    .enablePositionalOptions()
    .exitOverride();

  addOptions(
    program
      .command('fixtures')
      .description('Build the fixture database now (normally done on start when missing or stale)'),
    FIXTURE_OPTIONS,
  )
    .option('--force', 'rebuild even when the database is up to date')
    .addOption(
      new Option('--keep-files', "keep other generations' files-* folders (a watching server deletes them)").hideHelp(),
    )
    .addOption(new Option('--fresh-builder', 'compile the builder from fixtures/*.ts when present').hideHelp())
    .action(async (flags: Record<string, unknown>) => {
      const { force, keepFiles, freshBuilder, ...rest } = flags;
      const config = configFrom(rest);
      letYoungGenerationGrow();
      const result = await ensureFixtures(config, progress, force === true, {
        keepOtherFiles: keepFiles === true,
        freshBuilder: freshBuilder === true,
      });
      process.stdout.write(
        result.built
          ? `built ${result.dbPath} in ${result.seconds.toFixed(2)}s (fingerprint ${result.fingerprint.slice(0, 12)})\n`
          : `${result.dbPath} is up to date (fingerprint ${result.fingerprint.slice(0, 12)})\n`,
      );
    });

  addOptions(
    program
      .command('ca')
      .description("Make the local certificate authority if needed; print its certificate's path and how to trust it"),
  ).action(async (flags: Record<string, unknown>) => {
    const config = configFrom(flags);
    const { ensureCa } = await import('./platform/hosts/certificates.js');
    const files = await ensureCa(caDirOf(config));
    process.stdout.write(
      trustInstructions(
        files.certPath,
        `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`,
      ),
    );
  });

  program
    .command('options-table', { hidden: true })
    .description('Print the README option table')
    .action(() => {
      process.stdout.write(`${renderOptionsTable()}\n`);
    });
  return program;
}

/** Parses the command line and runs its command; usage and configuration errors end the process. */
export async function runProgram(program: Command): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    if (err instanceof ConfigError || err instanceof StartError) fail(err.message);
    throw err;
  }
}
