// --log-format: JSON lines for log collectors, pretty text for people; by default pretty only on a terminal.
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/app.js';
import { ConfigError, resolveConfig } from '../../src/config.js';

describe('--log-format', () => {
  it('writes JSON lines when asked, pretty text when asked, and refuses anything else', () => {
    const json = loggerOptions(resolveConfig({ logFormat: 'json' })) as { transport?: unknown };
    expect(json.transport).toBeUndefined();
    const pretty = loggerOptions(resolveConfig({ logFormat: 'pretty' })) as { transport?: { target: string } };
    expect(pretty.transport?.target).toBe('pino-pretty');
    expect(() => resolveConfig({ logFormat: 'xml' })).toThrow(ConfigError);
  });

  it('follows the terminal when unset', () => {
    const auto = loggerOptions(resolveConfig({})) as { transport?: unknown };
    expect(auto.transport !== undefined).toBe(process.stdout.isTTY === true);
  });
});
