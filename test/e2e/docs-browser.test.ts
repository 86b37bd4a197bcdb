// A real browser loads Swagger UI and sees every area's operations.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { startMockyard, type RunningMockyard } from '../../src/index.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(executablePath);
// CI sets MOCKYARD_REQUIRE_BROWSER=1, so a missing browser fails there instead of skipping.
const required = process.env.MOCKYARD_REQUIRE_BROWSER === '1';

describe.runIf(available || required)('Swagger UI in headless Chromium', () => {
  let browser: Browser;
  let server: RunningMockyard;

  beforeAll(async () => {
    server = await startMockyard();
    browser = await chromium.launch({
      executablePath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists the operations of all five areas', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock-tag-section', { timeout: 20_000 });
    const tags = await page.locator('.opblock-tag').allInnerTexts();
    for (const area of AREAS) expect(tags.join('\n')).toContain(area.name);

    const paths = (await page.locator('.opblock-summary-path').allInnerTexts()).map((p) => p.replace(/\u200b/g, ''));
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const areaPaths = Object.keys(doc.paths).filter((p) => AREAS.some((a) => p.startsWith(a.prefix)));
    for (const p of areaPaths) expect(paths).toContain(p);
    for (const area of AREAS) expect(areaPaths.some((p) => p.startsWith(area.prefix)), `${area.name} has operations`).toBe(true);
  });
});

if (!available && !required) {
  describe('Swagger UI in headless Chromium', () => {
    it.skip(`needs Chromium at ${executablePath} (apt-get install chromium)`, () => {});
  });
}
