// What the journal and every log line hide: values under a secret's name, and the admin token wherever it appears.

/** What a secret is shown as. */
export const MASK = '***';

/**
 * Whether a header or query parameter name carries a credential: Authorization and its proxy/forwarded
 * variants, anything ending in token, key or secret (api_key, api_key[], x-api-token, access_token,
 * X-API-Key), passwords and cookies. One rule for the journal and for every log line.
 */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(bareName(name));
}

const SECRET_NAME =
  /(?:authorization|authentication|(?:^|[-_])auth|credentials?|token|(?:^|[-_])(?:api)?[-_]?key|apikey|secret|password|passwd|passphrase|cookie)$/;

/**
 * The name as a server reads it: percent-decoded (twice encoded too), PHP's and qs's bracket keys by their
 * base name (api_key[0][x] is api_key), and PHP's `.` and space read as `_` in a parameter name.
 */
function bareName(name: string): string {
  let bare = name;
  for (let i = 0; i < 3 && bare.includes('%'); i++) {
    try {
      bare = decodeURIComponent(bare);
    } catch {
      break;
    }
  }
  const bracket = bare.indexOf('[');
  if (bracket > 0) bare = bare.slice(0, bracket);
  return bare.toLowerCase().replace(/[.\s+]/g, '_');
}

/**
 * The admin token as the journal and the log lines hide it: as sent, or percent-encoded in any way a URL may
 * carry it. Made once where the token is known (the journal, the request log): its pattern is compiled then.
 */
export class TokenMask {
  readonly #pattern: RegExp;

  constructor(readonly token: string) {
    this.#pattern = tokenPattern(token);
  }

  /** `text` with every spelling of the token replaced by the mask. */
  hide(text: string): string {
    return text.replace(this.#pattern, MASK);
  }
}

/** The mask of an admin token; null when none is set. */
export const tokenMask = (token: string | null): TokenMask | null => (token ? new TokenMask(token) : null);

/** `text` with the admin token replaced by the mask (nothing to hide without a token). */
export function hideToken(text: string, token: TokenMask | null): string {
  return token ? token.hide(text) : text;
}

/**
 * The token as a pattern in which each character may be itself or its UTF-8 bytes percent-encoded, in either
 * case of hex (`/` as `%2F` or `%2f`; a space also as `+`), one character at a time: a client or a proxy may
 * encode any part of a URL, and a server reads them all as the same token.
 */
function tokenPattern(token: string): RegExp {
  const hex = (b: number) =>
    b
      .toString(16)
      .padStart(2, '0')
      .replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`);
  const parts = [...token].map((ch) => {
    const encoded = [...Buffer.from(ch)].map((b) => `%${hex(b)}`).join('');
    const literal = ch.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
    return `(?:${literal}|${encoded}${ch === ' ' ? '|\\+' : ''})`;
  });
  return new RegExp(parts.join(''), 'g');
}
