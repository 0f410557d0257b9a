// @module-tag browser
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Sandbox } from '../../src/index.js';
import { listeningSandbox } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

/** The API reference at /__sandbox/docs: Swagger UI from the package, rendering the served documents in Chromium. */

let sandbox: Sandbox;
let browser: Browser;
let page: Page;
// Every URL the page asked for, and every error or policy violation it met.
const requested: string[] = [];
const problems: string[] = [];

const operationsOf = async (name: string) => {
  const document = parse(await readFile(`openapi/${name}.yaml`, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))).length;
};

beforeAll(async () => {
  sandbox = await listeningSandbox();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP ${event.violatedDirective}: ${event.blockedURI}`));
  });
  // No CDN: a request anywhere but the sandbox fails, and the test says so below.
  await page.route('**/*', (route) => (route.request().url().startsWith(`${sandbox.url}/`) ? route.continue() : route.abort()));
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

describe('the API reference', { timeout: 30_000 }, () => {
  it('renders every operation of the Payments API from files the sandbox serves, with no policy violation', async () => {
    await page.goto(`${sandbox.url}/__sandbox/docs`);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    expect(await page.locator('.information-container h1.title').textContent()).toMatch(/^Payments API v2 \(sandbox\)/);
    expect(await page.locator('.opblock').count()).toBe(await operationsOf('payments-api'));
    expect(await page.locator('.servers select option').first().textContent()).toBe(`${sandbox.url}/api/v2 - this sandbox`);
    // Swagger UI's own complaints about a document: parse errors, and the version and dialect warnings.
    expect(await page.locator('.errors-wrapper, .version-pragma').count()).toBe(0);
    await screenshot(page, 'api-reference');
    expect(requested.filter((url) => !url.startsWith(sandbox.url))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('serves Swagger UI unchanged from the swagger-ui-dist package, and nothing else', async () => {
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE']) {
      const served = Buffer.from(await (await fetch(`${sandbox.url}/__sandbox/docs/${file}`)).arrayBuffer());
      expect(served.equals(await readFile(`node_modules/swagger-ui-dist/${file}`)), file).toBe(true);
    }
    const missing = await fetch(`${sandbox.url}/__sandbox/docs/swagger-ui-standalone-preset.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ message: 'No file /swagger-ui-standalone-preset.js in the API reference', error: 'NOT_FOUND' });
  });

  it('tries a key exchange out against this sandbox, which journals it', async () => {
    const before = await (await fetch(`${sandbox.url}/__sandbox/requests/count?path=/encrypt/keys`)).json();
    const operation = page.locator('#operations-Authentication-exchangeKeys');
    await operation.locator('.opblock-summary-control').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response .response-col_status');
    await status.waitFor({ timeout: 10_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await operation.locator('.live-responses-table .response .response-col_description').textContent()).toContain('"encryptedKey"');
    await operation.screenshot({ path: 'test-results/api-reference-try-it-out.png' });
    const after = await (await fetch(`${sandbox.url}/__sandbox/requests/count?path=/encrypt/keys`)).json();
    expect(after.count).toBe(before.count + 1);
    expect(problems).toEqual([]);
  });

  it('switches to the control API', async () => {
    await page.getByRole('link', { name: 'Control API' }).click();
    await page.waitForURL(/document=control-api/);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    expect(await page.locator('.information-container h1.title').textContent()).toMatch(/^Payments API v2 sandbox control API/);
    expect(await page.locator('.opblock').count()).toBe(await operationsOf('control-api'));
    expect(await page.getByRole('link', { name: 'Control API' }).getAttribute('aria-current')).toBe('page');
    expect(await page.locator('.errors-wrapper, .version-pragma').count()).toBe(0);
    await screenshot(page, 'api-reference-control');
    expect(requested.filter((url) => !url.startsWith(sandbox.url))).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('the API reference of a sandbox with a control token', { timeout: 30_000 }, () => {
  it('reads the documents without the token, and "Authorize" takes it for trying the control API out', async () => {
    const guarded = await listeningSandbox({ controlToken: 'qa-reference-token' });
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    tab.setDefaultTimeout(10_000);
    try {
      await tab.goto(`${guarded.url}/__sandbox/docs?document=control-api`);
      await tab.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
      const operation = tab.locator('#operations-Overrides-listOverrides');
      await operation.locator('.opblock-summary-control').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      const execute = async () => {
        await operation.getByRole('button', { name: 'Execute' }).click();
        const status = operation.locator('.live-responses-table .response .response-col_status');
        await status.waitFor();
        return (await status.textContent())?.trim();
      };
      expect(await execute()).toBe('401');

      await tab.locator('.auth-wrapper button.authorize').click();
      await tab.locator('.auth-container input').fill('qa-reference-token');
      await tab.locator('.auth-btn-wrapper button.authorize').click();
      await tab.locator('.auth-btn-wrapper button.btn-done').click();
      await operation.getByRole('button', { name: 'Clear' }).click();
      expect(await execute()).toBe('200');
    } finally {
      await tab.close();
      await guarded.close();
    }
  });
});
