// The value rules of the option table: how each kind of option reads text and checks typed values.
import path from 'node:path';
import type { AreaName } from '../fixtures/types.js';
import type { Config, HostMapping } from './config-types.js';

export class ConfigError extends Error {}

const AREA_NAMES: readonly AreaName[] = ['archive', 'marketcheck', 'appcenter', 'agco', 'dkan'];

export interface OptionSpec<K extends keyof Config> {
  key: K;
  flag: string;
  env: string;
  /** The value when no source sets it. */
  default: Config[K];
  /** How README and --help show the default, when the value itself does not say it well. */
  shown?: string;
  description: string;
  /** Text from a flag or the environment to a checked value. */
  parse(raw: string): Config[K];
  /** A value given typed (startMockyard options): checked against the same rules, returned as stored. */
  check(value: unknown): Config[K];
  boolean?: true;
}

/** One entry of the option table, its value type checked against the config key. */
export const option = <K extends keyof Config>(spec: OptionSpec<K>) => spec;

export const wholeNumber = (name: string, min: number, max: number) => {
  const check = (value: unknown): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${String(value)}"`);
    }
    return value;
  };
  return {
    check,
    parse: (raw: string): number => {
      if (!/^-?\d+$/.test(raw.trim()))
        throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return check(Number(raw));
    },
  };
};

export const flag = (name: string) => ({
  check: (value: unknown): boolean => {
    if (typeof value !== 'boolean') throw new ConfigError(`${name} must be true or false, got "${String(value)}"`);
    return value;
  },
  parse: (raw: string): boolean => {
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on', ''].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  },
});

export const stringList = (name: string, item: (s: string) => string = (s) => s) => {
  const check = (value: unknown): readonly string[] => {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
      throw new ConfigError(`${name} must be a list of strings`);
    return Object.freeze(value.map((v: string) => item(v.trim())).filter((v) => v.length > 0));
  };
  return { check, parse: (raw: string) => check(raw.split(',')) };
};

/** null is "off" (or "unset"); anything else goes through `inner`. */
export const orOff = <T>(
  inner: { parse(raw: string): T; check(value: unknown): T },
  offWords: readonly string[] = ['off'],
) => ({
  parse: (raw: string): T | null => (offWords.includes(raw.trim()) ? null : inner.parse(raw)),
  check: (value: unknown): T | null => (value === null ? null : inner.check(value)),
});

export const text = (name: string, rule: (s: string) => string) => ({
  parse: rule,
  check: (value: unknown): string => {
    if (typeof value !== 'string') throw new ConfigError(`${name} must be text, got "${String(value)}"`);
    return rule(value);
  },
});

export const folder = (name: string) =>
  text(name, (raw) => {
    if (raw.trim() === '') throw new ConfigError(`${name} must not be empty`);
    return path.resolve(raw);
  });

export const latencyRange = {
  parse: (raw: string): readonly [number, number] => {
    const m = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(raw.trim());
    if (!m) throw new ConfigError(`latency must be milliseconds or a range like 50-200, got "${raw}"`);
    return latencyRange.check([Number(m[1]), Number(m[2] ?? m[1])]);
  },
  check: (value: unknown): readonly [number, number] => {
    const ok =
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((v) => Number.isSafeInteger(v) && v >= 0 && v <= 999_999);
    if (!ok) throw new ConfigError(`latency must be milliseconds or a [low, high] range, got "${String(value)}"`);
    const [min, max] = value as [number, number];
    if (max < min) throw new ConfigError(`latency range must be low-high, got "${min}-${max}"`);
    return Object.freeze([min, max] as const);
  },
};

export const percentage = (name: string) => {
  const check = (value: unknown): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
      throw new ConfigError(`${name} must be a percentage from 0 to 100, got "${String(value)}"`);
    }
    return value;
  };
  return { check, parse: (raw: string) => check(raw.trim() === '' ? NaN : Number(raw)) };
};

/** name=area entries; a typed value may also be a list of {host, area}. */
export const hostMappings = (() => {
  const entry = (text: string): HostMapping => {
    const m = /^(\*\.)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)=([a-z]+)$/.exec(text.trim());
    if (!m || !(AREA_NAMES as readonly string[]).includes(m[3]!)) {
      throw new ConfigError(
        `host map entries must be name=area with area one of ${AREA_NAMES.join(', ')}, got "${text}"`,
      );
    }
    return Object.freeze({ host: `${m[1] ?? ''}${m[2]!.toLowerCase()}`, area: m[3] as AreaName });
  };
  const check = (value: unknown): readonly HostMapping[] => {
    if (!Array.isArray(value)) throw new ConfigError('host map must be a list of name=area entries');
    return Object.freeze(
      value.map((v: unknown) =>
        typeof v === 'object' && v !== null
          ? entry(`${(v as HostMapping).host}=${(v as HostMapping).area}`)
          : entry(String(v)),
      ),
    );
  };
  return { check, parse: (raw: string) => check(raw.split(',').filter((e) => e.trim() !== '')) };
})();
