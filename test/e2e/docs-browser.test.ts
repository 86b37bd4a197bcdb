// A real browser loads Swagger UI and sees every area's operations.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
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
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
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
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    for (const area of AREAS) {
      // Area paths are written as the real service writes them; the path item's server adds the prefix.
      const areaPaths = Object.entries(doc.paths)
        .filter(([, item]) => Object.values(item).some((op) => op.tags?.includes(area.name)))
        .map(([p]) => p);
      expect(areaPaths.length, `${area.name} has operations`).toBeGreaterThan(0);
      for (const p of areaPaths) expect(paths).toContain(p);
    }
  });

  // Another catalog credential in the Authorize dialog, then "Try it out" and "Execute" on one operation per
  // area, as a person exploring mockyard would; every call must come back 2xx.
  it('calls one operation per area from the UI after Authorize', async () => {
    const catalog = (await (await fetch(`${server.url}/__mockyard/fixtures`)).json()) as {
      archive: { items: { identifier: string }[] };
      marketcheck: { apiKeys: string[] };
      appcenter: { tokens: { token: string; user: string }[] };
      agco: { tokens: string[] };
      dkan: { datasets: { id: string; resources: { columns: { name: string }[] }[] }[] };
    };
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock-tag-section', { timeout: 20_000 });

    await page.click('.auth-wrapper .authorize');
    const authorize = async (scheme: string, value: string) => {
      const box = page.locator('.auth-container', { hasText: scheme });
      // The page arrives authorized with fixture credentials; a user changes one by logging out first.
      await box.locator('button', { hasText: 'Logout' }).click();
      await box.locator('input').first().fill(value);
      await box.locator('button.authorize').click();
    };
    await authorize('api_key', catalog.marketcheck.apiKeys[0]!);
    await authorize('APIToken', catalog.appcenter.tokens.find((t) => t.user === 'alice')!.token);
    const bearer = page.locator('.auth-container', { hasText: 'agcoBearer' });
    // The description's `<token>` is shown, not swallowed as an HTML tag.
    expect(await bearer.innerText()).toContain('Authorization: Bearer <token>');
    await authorize('agcoBearer', catalog.agco.tokens.at(-1)!);
    await page.click('.dialog-ux .modal-ux .btn-done');

    const dataset = catalog.dkan.datasets[0]!;
    const column = dataset.resources[0]!.columns[0]!.name;
    const calls: {
      area: string;
      operationId: string;
      params: Record<string, string>;
      items?: Record<string, string>;
    }[] = [
      { area: 'archive', operationId: 'getItemMetadata', params: { identifier: catalog.archive.items[0]!.identifier } },
      { area: 'marketcheck', operationId: 'getPopularCars', params: { car_type: 'used' } },
      { area: 'appcenter', operationId: 'releases_list', params: { owner_name: 'alice', app_name: 'Pocket-Notes' } },
      { area: 'agco', operationId: 'StringDefinitions_GetDefinitions', params: {} },
      {
        area: 'dkan',
        operationId: 'datastore-datasetindex-query-get',
        params: { datasetId: dataset.id, index: '0', limit: '3' },
        items: { sorts: JSON.stringify({ property: column, order: 'desc' }) },
      },
    ];
    for (const call of calls) {
      const status = await execute(page, call.area, call.operationId, call.params, call.items ?? {});
      expect(status, `${call.area} ${call.operationId}`).toMatch(/^2\d\d$/);
    }
    // The calls went through mockyard with the credentials from the dialog.
    const journal = server.runtime.journal.list({}).requests;
    expect(journal.find((r) => r.area === 'agco')?.headers.authorization).toBe('Bearer ***');
    expect(journal.find((r) => r.area === 'dkan')?.query.sorts).toBeDefined();
  }, 120_000); // five operations clicked through a real browser: about 15 s alone, far more on a busy CI machine
});

async function execute(
  page: Page,
  area: string,
  operationId: string,
  params: Record<string, string>,
  items: Record<string, string>,
): Promise<string> {
  const op = page.locator(`#operations-${area}-${operationId}`);
  await op.locator('.opblock-summary').first().click();
  await op.locator('.try-out__btn').click();
  for (const [name, value] of Object.entries(params)) {
    const row = op.locator(`tr[data-param-name="${name}"]`);
    const select = row.locator('select');
    if ((await select.count()) > 0) await select.first().selectOption(value);
    else await row.locator('input').first().fill(value);
  }
  for (const [name, value] of Object.entries(items)) {
    // An array of objects: Swagger UI offers one item pre-filled from the schema and sends each item as
    // JSON text; type ours over it.
    const row = op.locator(`tr[data-param-name="${name}"]`);
    const item = row.locator('textarea, input[type=text]');
    if ((await item.count()) === 0) await row.locator('button', { hasText: /add/i }).first().click();
    await item.first().fill(value);
  }
  await op.locator('.execute').click();
  const status = op.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 15_000 });
  return (await status.innerText()).trim().split(/\s/)[0]!;
}

if (!available && !required) {
  describe('Swagger UI in headless Chromium', () => {
    it.skip(`needs Chromium at ${executablePath} (apt-get install chromium)`, () => {});
  });
}
