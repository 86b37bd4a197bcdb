// Every operation in Swagger UI at /docs, as a new user meets it: expand, "Try it out", "Execute" with
// the values the page prefills and the credentials it is authorized with on load; each answers 2xx.
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockyard, type RunningMockyard } from '../../src/index.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(executablePath);
// CI sets MOCKYARD_REQUIRE_BROWSER=1, so a missing browser fails there instead of skipping.
const required = process.env.MOCKYARD_REQUIRE_BROWSER === '1';

/** Operations that cannot answer 2xx from the page by design, with the reason. */
/** Operations that cannot answer 2xx in Swagger UI by design, with why (none left: the live stream is not in /docs). */
const CANNOT_SUCCEED: Record<string, string> = {};

/**
 * Clicked in document order, except that the operations which remove what others read (the journal, a
 * scenario, the controls) go last, and the scenario is put before it is read, as a person would.
 */
// The journal holds request 1 (the prefilled id) once any area request has been made.
const LAST = [
  'mockyard_request_get',
  'mockyard_request_near_misses',
  'mockyard_scenarios_delete',
  'mockyard_controls_clear',
  'mockyard_requests_clear',
  'mockyard_reset',
];
const FIRST = ['mockyard_scenarios_put'];
const rank = (id: string) => (FIRST.includes(id) ? -1 : LAST.includes(id) ? 1 + LAST.indexOf(id) : 0);

interface Operation {
  tag: string;
  operationId: string;
  label: string;
}

describe.runIf(available || required)('Swagger UI "Try it out" in headless Chromium', () => {
  let browser: Browser;
  let server: RunningMockyard;
  let operations: Operation[];

  beforeAll(async () => {
    server = await startMockyard();
    browser = await launchChromium();
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
    };
    operations = Object.entries(doc.paths)
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method, op]) => method !== 'servers' && method !== 'parameters' && op.operationId)
          .map(([method, op]) => ({
            tag: op.tags?.[0] ?? 'default',
            operationId: op.operationId!,
            label: `${method.toUpperCase()} ${path}`,
          })),
      )
      .sort((a, b) => rank(a.operationId) - rank(b.operationId));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('carries mockyard branding, not the framework one', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock-tag-section', { timeout: 20_000 });
    expect(await page.title()).toBe('mockyard API docs');
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toContain('favicon.svg');
    const logo = page.locator('.topbar .topbar-wrapper > a.link img');
    await logo.waitFor();
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(await page.locator('.topbar').innerHTML()).not.toMatch(/swagger/i);
    // A placeholder in a description stays visible instead of being dropped as an HTML tag.
    const dkan = page.locator('[id="operations-dkan-datastore-datasetindex-query-get"]');
    await dkan.locator('.opblock-summary').first().click();
    await expect.poll(() => dkan.innerText()).toContain('<field> or <field> <asc|desc>');
  }, 60_000);

  it('answers 2xx for every operation, with the prefilled values and the preauthorized credentials', async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock-tag-section', { timeout: 20_000 });
    expect(operations.length).toBeGreaterThan(50);

    const failures: string[] = [];
    for (const op of operations) {
      if (CANNOT_SUCCEED[op.operationId]) continue;
      const status = await execute(page, op);
      if (!/^2\d\d$/.test(status)) failures.push(`${op.label} (${op.operationId}): ${status}`);
    }
    expect(failures).toEqual([]);
    expect(consoleErrors).toEqual([]);
  }, 600_000); // about seventy operations clicked through a real browser
});

async function execute(page: Page, op: Operation): Promise<string> {
  const block = page.locator(`[id="operations-${op.tag}-${op.operationId}"]`);
  await block.locator('.opblock-summary').first().click();
  await block.locator('.try-out__btn').click();
  await block.locator('.execute').click();
  const status = block.locator('.live-responses-table .response .response-col_status').first();
  const shown = await status.waitFor({ timeout: 20_000 }).then(
    () => true,
    () => false,
  );
  if (!shown) return 'no answer shown';
  const code = (await status.innerText()).trim().split(/\s/)[0]!;
  // Collapse again so the page stays small.
  await block.locator('.opblock-summary').first().click();
  return code;
}

if (!available && !required) {
  describe('Swagger UI "Try it out" in headless Chromium', () => {
    it.skip(`needs Chromium at ${executablePath} (apt-get install chromium)`, () => {});
  });
}
