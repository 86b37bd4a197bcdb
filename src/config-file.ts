// `--config mockyard.json`: a JSON object whose keys are the option names of the options table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, DEFAULTS, resolveConfig, type ConfigInput } from './config.js';

/** Reads and checks a config file; its values sit between the defaults and the environment. */
export function loadConfigFile(file: string): ConfigInput {
  const shown = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(shown, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read config file ${shown}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config file ${shown} is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(
      `config file ${shown} must hold a JSON object whose keys are option names, e.g. {"port": 4010}`,
    );
  }
  const values = parsed as Record<string, unknown>;
  for (const [key, value] of Object.entries(values)) {
    if (!(key in DEFAULTS))
      throw new ConfigError(
        `config file ${shown}: unknown option "${key}"; the keys are: ${Object.keys(DEFAULTS).join(', ')}`,
      );
    const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
    if (!(value === null || scalar(value) || (Array.isArray(value) && value.every(scalar)))) {
      throw new ConfigError(
        `config file ${shown}: "${key}" must be a string, number, boolean, null or a list of those`,
      );
    }
  }
  try {
    // Checked here, without the environment, so a bad value names the file it came from.
    resolveConfig({}, {}, values as ConfigInput);
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`config file ${shown}: ${err.message}`);
    throw err;
  }
  return values as ConfigInput;
}
