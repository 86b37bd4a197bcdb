// Parses the Prefer header (RFC 7240) into mockyard's test controls: code, delay and fault.
export const FAULT_KINDS = ['reset', 'empty', 'malformed', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Longest delay a single request can ask for; longer values are cut to this. */
export const MAX_DELAY_MS = 60_000;

export interface Preferences {
  code?: number;
  /** Inclusive range in milliseconds; equal ends for a fixed delay. */
  delay?: readonly [number, number];
  fault?: FaultKind;
}

export class PreferError extends Error {}

function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

/**
 * Several preferences may share one header or come in several headers; the first of each kind
 * wins and unknown ones are ignored, as RFC 7240 asks. A known preference with a bad value is an
 * error, since silently ignoring `code=40` would hide a typo in a test.
 */
export function parsePrefer(header: string | string[] | undefined): Preferences {
  if (header === undefined) return {};
  const raw = Array.isArray(header) ? header.join(',') : header;
  const out: Preferences = {};
  for (const part of raw.split(',')) {
    const [pair = ''] = part.split(';');
    const eq = pair.indexOf('=');
    const name = (eq < 0 ? pair : pair.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? '' : unquote(pair.slice(eq + 1));
    if (name === 'code' && out.code === undefined) {
      const code = Number(value);
      if (!/^\d{3}$/.test(value) || code < 100 || code > 599) {
        throw new PreferError(`Prefer: code must be an HTTP status from 100 to 599, got "${value}"`);
      }
      out.code = code;
    } else if (name === 'delay' && out.delay === undefined) {
      const m = /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(value);
      if (!m) throw new PreferError(`Prefer: delay must be milliseconds or a range like 100-500, got "${value}"`);
      const min = Math.min(Number(m[1]), MAX_DELAY_MS);
      const max = Math.min(m[2] === undefined ? Number(m[1]) : Number(m[2]), MAX_DELAY_MS);
      if (max < min) throw new PreferError(`Prefer: delay range must be low-high, got "${value}"`);
      out.delay = [min, max];
    } else if (name === 'fault' && out.fault === undefined) {
      const kind = value.toLowerCase();
      if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
        throw new PreferError(`Prefer: fault must be one of ${FAULT_KINDS.join(', ')}, got "${value}"`);
      }
      out.fault = kind as FaultKind;
    }
  }
  return out;
}
