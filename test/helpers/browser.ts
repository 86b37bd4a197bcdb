// Headless Chromium for the browser tests: Debian's chromium, with the flags this closed network needs.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// CI sets MOCKYARD_REQUIRE_BROWSER=1, so a missing browser fails there instead of skipping.
export const browserTests = existsSync(executablePath) || process.env.MOCKYARD_REQUIRE_BROWSER === '1';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      // Without these, Chromium's background connections are refused many at a time on a closed network.
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
