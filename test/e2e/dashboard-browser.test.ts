// The dashboard in a real browser: live requests, filters, detail, scenarios, fixtures, controls and the
// traffic chart, with no console errors and no serious accessibility violations at desktop and phone sizes.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { startMockyard, type RunningMockyard } from '../../src/index.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(executablePath);
// CI sets MOCKYARD_REQUIRE_BROWSER=1, so a missing browser fails there instead of skipping.
const required = process.env.MOCKYARD_REQUIRE_BROWSER === '1';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const MC = '/marketcheck/popular/cars?api_key=mockyard-demo&car_type=new';

interface Opened {
  page: Page;
  context: BrowserContext;
  errors: string[];
}

async function open(browser: Browser, url: string, viewport = DESKTOP, bypassCSP = false): Promise<Opened> {
  // axe-core is injected as an inline script, which the page's own CSP rightly forbids.
  const context = await browser.newContext({ viewport, bypassCSP });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/__mockyard/`);
  await page.getByText('live', { exact: true }).waitFor();
  return { page, context, errors };
}

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  // Strings run in the page, where the DOM is (this file is type-checked for Node).
  const result = (await page.evaluate("axe.run({ resultTypes: ['violations'] })")) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

// A real browser on a busy CI machine: a page and axe take seconds, not milliseconds, so each test has room.
const BROWSER_TIMEOUT = { timeout: 120_000 };

describe.runIf(available || required)('the dashboard in headless Chromium', BROWSER_TIMEOUT, () => {
  let browser: Browser;
  let server: RunningMockyard;

  beforeAll(async () => {
    server = await startMockyard();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows requests live, filters them, and shows one masked, with a curl to copy', async () => {
    const { page, context, errors } = await open(browser, server.url);
    await fetch(`${server.url}${MC}`);
    await fetch(`${server.url}/dkan/datastore/query/no-such-dataset/0`);
    const mcRow = page.locator('tbody tr', { hasText: '/popular/cars' });
    await mcRow.waitFor();
    const dkanRow = page.locator('tbody tr', { hasText: 'no-such-dataset' });
    await dkanRow.waitFor();
    expect(await dkanRow.innerText()).toContain('404');

    await page.selectOption('#filter-area', 'dkan');
    await expect.poll(() => mcRow.count()).toBe(0);
    expect(await dkanRow.count()).toBe(1);
    await page.selectOption('#filter-area', '');
    await page.selectOption('#filter-status', '2xx');
    await expect.poll(() => dkanRow.count()).toBe(0);
    await page.selectOption('#filter-status', '');
    await page.fill('#filter-text', 'no-such');
    await expect.poll(() => mcRow.count()).toBe(0);
    await page.fill('#filter-text', '');

    await mcRow.getByRole('button').click();
    const detail = page.getByRole('complementary', { name: 'Selected request' });
    await detail.getByText('api_key').first().waitFor();
    // Masked exactly as the journal masks it: the key never reaches the page.
    expect(await detail.innerText()).not.toContain('mockyard-demo');
    await detail.getByRole('button', { name: 'Copy as curl' }).click();
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(copied).toMatch(/^curl .*\/marketcheck\/popular\/cars\?api_key=/);

    await dkanRow.getByRole('button').click();
    await detail.getByRole('heading', { name: 'Why' }).waitFor();
    expect(await detail.innerText()).toContain('dkan');
    // The answer's own words and mockyard's hint, not just "see the body".
    await detail.getByRole('list', { name: 'Error messages' }).getByText('No resource found for dataset').waitFor();
    await detail.getByText(/^mockyard’s hint: No dataset/).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the validation error of a refused request', async () => {
    const { page, context, errors } = await open(browser, server.url);
    const refused = await fetch(`${server.url}/dkan/datastore/query?limit=not-a-number`);
    await refused.arrayBuffer();
    expect(refused.status).toBe(400);
    // Exactly this path: the earlier /dkan/datastore/query/no-such-dataset/0 is a row too.
    const row = page.locator('tbody tr').filter({
      has: page.getByRole('button', { name: '/dkan/datastore/query', exact: true }),
    });
    await row.waitFor();
    await row.getByRole('button').click();
    const detail = page.getByRole('complementary', { name: 'Selected request' });
    await detail.getByRole('heading', { name: 'Why' }).waitFor();
    const messages = detail.getByRole('list', { name: 'Error messages' });
    await messages.getByText('JSON Schema validation failed.').waitFor();
    await messages.getByText(/The attribute must be an integer, "not-a-number" given/).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('pauses, resumes and clears', async () => {
    const { page, context, errors } = await open(browser, server.url);
    await page.getByRole('button', { name: 'Pause' }).click();
    await fetch(`${server.url}/archive/metadata/paused-while-away`);
    await page.getByText(/paused, 1 waiting/).waitFor();
    expect(await page.locator('tbody tr', { hasText: 'paused-while-away' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('tbody tr', { hasText: 'paused-while-away' }).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('uploads, views and deletes a scenario through the admin API', async () => {
    const { page, context, errors } = await open(browser, server.url);
    page.on('dialog', (d) => void d.accept());
    await page.getByRole('tab', { name: 'Scenarios & stubs' }).click();
    const body = {
      appcenter: {
        users: [{ name: 'ui', token: 'ui-token' }],
        apps: [
          {
            owner: 'ui',
            name: 'Uploaded',
            releases: [{ id: 1, version: '1', short_version: '1.0.0', uploaded_at: '2026-01-02T03:04:05Z' }],
          },
        ],
      },
    };
    await page.fill('#scenario-name', 'from-the-ui');
    await page.setInputFiles('#scenario-file', {
      name: 'from-the-ui.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(body)),
    });
    await page.getByRole('button', { name: 'Upload scenario' }).click();
    await page.getByRole('button', { name: 'View from-the-ui' }).waitFor();
    const listed = (await (await fetch(`${server.url}/__mockyard/scenarios`)).json()) as unknown;
    expect(JSON.stringify(listed)).toContain('from-the-ui');
    const item = page.getByRole('listitem').filter({ hasText: 'from-the-ui' });
    expect(await item.innerText()).toContain('appcenter: 1 users, 1 apps, 1 releases');
    await page.getByRole('button', { name: 'View from-the-ui' }).click();
    await page
      .getByLabel('Selected item')
      .getByText(/"releases": 1/)
      .waitFor();

    // A request made in the scenario, one outside it: the scenario filter keeps the first.
    const inScenario = await fetch(`${server.url}/scenarios/from-the-ui/appcenter/v0.1/apps/ui/Uploaded/releases`, {
      headers: { 'x-api-token': 'ui-token' },
    });
    expect(inScenario.status).toBe(200);
    await (await fetch(`${server.url}/appcenter/v0.1/apps/ui/Uploaded/releases`)).arrayBuffer();
    await page.getByRole('tab', { name: 'Requests' }).click();
    const rows = page.locator('tbody tr', { hasText: '/Uploaded/releases' });
    await expect.poll(() => rows.count()).toBe(2);
    await page.fill('#filter-scenario', 'from-the-ui');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.innerText()).toContain('from-the-ui');
    await page.fill('#filter-scenario', '');

    await page.getByRole('tab', { name: 'Scenarios & stubs' }).click();
    await page.getByRole('button', { name: 'Delete from-the-ui' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'View from-the-ui' }).count()).toBe(0);
    expect((await fetch(`${server.url}/__mockyard/scenarios/from-the-ui`)).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('lists fixtures as requests that work when copied', async () => {
    const { page, context, errors } = await open(browser, server.url);
    await page.getByRole('tab', { name: 'Fixtures' }).click();
    for (const area of AREAS) await page.getByRole('heading', { name: new RegExp(area.title) }).waitFor();
    const copyButtons = page.getByRole('button', { name: /^Copy: / });
    expect(await copyButtons.count()).toBeGreaterThanOrEqual(AREAS.length);
    // Every example the page offers answers 2xx as it is.
    const examples = (await (await fetch(`${server.url}/__mockyard/fixtures/examples`)).json()) as Record<
      string,
      { method: string; path: string; headers?: Record<string, string> }[]
    >;
    for (const area of AREAS) {
      const list = examples[area.name] ?? [];
      expect(list.length, area.name).toBeGreaterThan(0);
      for (const ex of list) {
        const res = await fetch(`${server.url}${area.prefix}${ex.path}`, { method: ex.method, headers: ex.headers });
        await res.arrayBuffer();
        expect(res.status, `${area.name} ${ex.path}`).toBeLessThan(300);
      }
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sets and resets an area control, and shows traffic at a glance', async () => {
    const { page, context, errors } = await open(browser, server.url);
    await page.getByRole('tab', { name: 'Controls' }).click();
    const form = page.getByRole('form', { name: 'Controls for marketcheck' });
    await form.getByLabel('Error rate (%)').fill('100');
    await form.getByRole('button', { name: 'Apply to marketcheck' }).click();
    await form.getByText(/active: error rate 100%/).waitFor();
    const failed = await fetch(`${server.url}${MC}`);
    await failed.arrayBuffer();
    expect(failed.status).toBeGreaterThanOrEqual(400);
    const other = await fetch(`${server.url}/archive/metadata/${'x'}`);
    await other.arrayBuffer();
    expect(other.status).toBe(200); // the archive answers {} for unknown items, untouched by marketcheck's control
    await form.getByRole('button', { name: 'Reset marketcheck' }).click();
    await form.getByText('no control in play').waitFor();
    const ok = await fetch(`${server.url}${MC}`);
    await ok.arrayBuffer();
    expect(ok.status).toBe(200);
    await page.getByRole('img', { name: /^marketcheck: \d+ requests/ }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const [label, viewport] of [
    ['1280×800', DESKTOP],
    ['390×844', PHONE],
  ] as const) {
    it(`has no serious accessibility violations and fits at ${label}`, async () => {
      await fetch(`${server.url}${MC}`);
      const { page, context, errors } = await open(browser, server.url, viewport, true);
      for (const tab of ['Requests', 'Scenarios & stubs', 'Fixtures', 'Controls']) {
        await page.getByRole('tab', { name: tab }).click();
        await page.locator(`[role="tabpanel"]:not([hidden]) :is(li, form, tr, article)`).first().waitFor();
        expect(await seriousViolations(page), tab).toEqual([]);
        const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
        expect(overflow, `${tab} fits the width`).toBeLessThanOrEqual(0);
      }
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

describe.runIf(available || required)('the dashboard behind an admin token', BROWSER_TIMEOUT, () => {
  let browser: Browser;
  let server: RunningMockyard;

  beforeAll(async () => {
    server = await startMockyard({ adminToken: 'ui-secret' });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function openWithToken(viewport = DESKTOP, bypassCSP = false): Promise<Opened> {
    const context = await browser.newContext({ viewport, bypassCSP });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      // The first, tokenless call is refused on purpose; that 401 is the prompt for the token.
      if (m.type() === 'error' && !m.text().includes('401')) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/__mockyard/`);
    await page.getByLabel('Admin token (--admin-token)').fill('ui-secret');
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByText('live', { exact: true }).waitFor();
    return { page, context, errors };
  }

  it('uploads a stub through /__admin, shows it answer and nearly match requests, and deletes it', async () => {
    const admin = { authorization: 'Bearer ui-secret' };
    const { page, context, errors } = await openWithToken(PHONE, true);
    page.on('dialog', (d) => void d.accept());
    await page.getByRole('tab', { name: 'Scenarios & stubs' }).click();
    // A file WireMock itself would take (request.queryParameters, response.jsonBody), for the archive's real path.
    const mapping = {
      name: 'ui stub',
      request: { method: 'GET', urlPath: '/metadata/ui-stubbed', queryParameters: { kind: { equalTo: 'ui' } } },
      response: { status: 200, jsonBody: { from: 'the ui stub' } },
    };
    const file = (json: unknown) => ({
      name: 'stub.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(json)),
    });
    await page.setInputFiles('#stub-file', file({ request: { method: 'GET', urlPath: 7 } }));
    await page.getByRole('button', { name: 'Upload stub' }).click();
    // WireMock's error body, in words.
    await page
      .getByRole('status')
      .getByText(/^Upload failed: .*urlPath/)
      .waitFor();
    await page.setInputFiles('#stub-file', file(mapping));
    await page.getByRole('button', { name: 'Upload stub' }).click();
    await page.getByRole('button', { name: 'View ui stub' }).waitFor();
    // The page used the admin API with the token; that API still refuses without it.
    expect((await fetch(`${server.url}/__admin/mappings`)).status).toBe(401);
    const listed = (await (await fetch(`${server.url}/__admin/mappings`, { headers: admin })).json()) as {
      mappings: { id: string; name?: string }[];
    };
    const id = listed.mappings.find((m) => m.name === 'ui stub')?.id;
    expect(id).toBeTruthy();

    const hit = await fetch(`${server.url}/archive/metadata/ui-stubbed?kind=ui`);
    expect(await hit.json()).toEqual({ from: 'the ui stub' });
    const near = await fetch(`${server.url}/archive/metadata/ui-stubbed?kind=other`);
    expect(await near.json()).not.toEqual({ from: 'the ui stub' });

    await page.getByRole('tab', { name: 'Requests' }).click();
    const stubbedRow = page.locator('tbody tr', { hasText: 'ui-stubbed' }).filter({ hasText: 'ui stub' });
    await stubbedRow.waitFor();
    expect(await stubbedRow.count()).toBe(1);
    await stubbedRow.getByRole('button').click();
    const detail = page.getByRole('complementary', { name: 'Selected request' });
    await detail.getByText(`Answered by the stub “ui stub” (id ${id}).`).waitFor();
    expect(await detail.getByLabel('Stub mapping').innerText()).toContain('/metadata/ui-stubbed');

    await page
      .locator('tbody tr', { hasText: 'ui-stubbed' })
      .filter({ hasNotText: 'ui stub' })
      .getByRole('button')
      .click();
    const misses = detail.getByRole('list', { name: 'Nearest stubs' });
    await misses.getByText(/did not match: query kind$/).waitFor();
    expect(await misses.locator('li').first().innerText()).toContain('ui stub');
    // The explanation is as accessible as the rest, and fits a phone.
    expect(await seriousViolations(page)).toEqual([]);
    expect(
      (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number,
    ).toBeLessThanOrEqual(0);

    await page.getByRole('tab', { name: 'Scenarios & stubs' }).click();
    await page.getByRole('button', { name: 'View ui stub' }).click();
    expect(await page.getByLabel('Selected item').innerText()).toContain('the ui stub');
    await page.getByRole('button', { name: 'Delete ui stub' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'View ui stub' }).count()).toBe(0);
    expect((await fetch(`${server.url}/__admin/mappings/${id}`, { headers: admin })).status).toBe(404);
    const after = await fetch(`${server.url}/archive/metadata/ui-stubbed?kind=ui`);
    expect(await after.json()).not.toEqual({ from: 'the ui stub' });
    // Chromium itself logs the refused upload's 422; the page adds no error of its own.
    expect(errors.filter((e) => !e.includes('status of 422'))).toEqual([]);
    await context.close();
  });

  it('asks for the token and then streams with it', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${server.url}/__mockyard/`);
    await page.getByLabel('Admin token (--admin-token)').fill('ui-secret');
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByText('live', { exact: true }).waitFor();
    await fetch(`${server.url}${MC}`);
    await page.locator('tbody tr', { hasText: '/popular/cars' }).waitFor();
    // The page is no back door: without the token the same API refuses.
    expect((await fetch(`${server.url}/__mockyard/live`)).status).toBe(401);
    await context.close();
  });
});
