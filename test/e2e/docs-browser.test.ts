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
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
    for (const area of AREAS) {
      // Area paths are written as the real service writes them; the path item's server adds the prefix.
      const areaPaths = Object.entries(doc.paths)
        .filter(([, item]) => Object.values(item).some((op) => op.tags?.includes(area.name)))
        .map(([p]) => p);
      expect(areaPaths.length, `${area.name} has operations`).toBeGreaterThan(0);
      for (const p of areaPaths) expect(paths).toContain(p);
    }
  });
});

if (!available && !required) {
  describe('Swagger UI in headless Chromium', () => {
    it.skip(`needs Chromium at ${executablePath} (apt-get install chromium)`, () => {});
  });
}
