// @module-tag browser
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store, type Sandbox } from '../../src/index.js';
import { merchantRecord } from '../store/fixtures.js';
import { accountPayment, ApiClient, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

/**
 * The dashboard stays usable however much the sandbox holds: with 20,000
 * merchants it asks for a page of them, never all, and each of its requests
 * is answered in a bounded body (control-api.yaml, "Paging"). And it builds
 * every call so that any paymentReference arrives as it is: `.` and `..`,
 * which a browser resolves away in a URL path, are settled too.
 */

const MERCHANTS = 20_000;
/** The most a dashboard request may answer, in bytes: a page of merchants is a few KB; all 20,000 are over 1 MB. */
const BODY_AT_MOST = 256 * 1024;

let folder: string;
let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;
const answers: Array<{ path: string; bytes: number }> = [];
const pending: Array<Promise<void>> = [];

// Letters and digits to the end, so that the fixture's secret key (the key's last 16 characters) is well formed.
const keyOf = (n: number) => `SBTESTPUBK_many${String(n).padStart(12, '0')}`;

beforeAll(async () => {
  // Straight into a store file, which the sandbox then opens: what is tested is the dashboard, not how merchants come to be.
  folder = await mkdtemp(join(tmpdir(), 'payments-sandbox-dashboard-bounds-'));
  const dataFile = join(folder, 'store.json');
  const store = await Store.open({ file: dataFile, maxMerchants: MERCHANTS });
  for (let n = 0; n < MERCHANTS; n += 1) store.putMerchant(merchantRecord(keyOf(n)));
  await store.commit();
  await store.close();
  sandbox = await listeningSandbox({ dataFile });
  api = await ApiClient.for(sandbox);
  // One of the stored merchants, its token from the key exchange.
  const { publicKey, secretKey } = merchantRecord(keyOf(7));
  const exchanged = await api.send('POST', '/encrypt/keys', { key: `${secretKey}.${publicKey}` });
  merchant = { publicKey, secretKey, token: exchanged.body.data.EncryptedSecKey.encryptedKey, basic: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}` };
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
  page.on('response', (response: Response) => {
    const url = new URL(response.url());
    // The live events are a stream that never ends: its bounds are the stream's own (docs/decisions.md#d80-server-sent-events).
    if (!url.pathname.startsWith('/__sandbox/') || url.pathname === '/__sandbox/events' || response.request().method() === 'OPTIONS') return;
    pending.push(response.body().then((body) => void answers.push({ path: `${url.pathname}${url.search}`, bytes: body.length }), () => undefined));
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** Opens a view by its address and waits until it has drawn what it read. */
async function open(path: string, view: string) {
  await page.goto(`${sandbox.url}/__sandbox/dashboard/${path}`);
  await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`);
}

describe('the dashboard with 20,000 merchants', () => {
  it('offers a page of merchants, finds one by part of its key, and shows it, every answer bounded', { timeout: 20_000 }, async () => {
    await open('', 'overview');
    const offered = await page.locator('#merchants tbody tr').count();
    expect(offered).toBeGreaterThan(1);
    expect(offered).toBeLessThanOrEqual(50);
    expect(await page.getByRole('navigation', { name: 'Merchants pages' }).textContent()).toContain(`of ${MERCHANTS}`);

    // Every view that lists merchants reads a page of them.
    await open('clock', 'clock');
    expect(await page.locator('section.clock').count()).toBeLessThanOrEqual(50);

    const wanted = keyOf(12_345);
    await open('', 'overview');
    await page.getByLabel('Find a merchant').fill('many000000012345');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.waitForFunction(() => new URL(location.href).searchParams.get('q') === 'many000000012345' && document.querySelector('main#view')?.hasAttribute('data-ready'));
    expect(await page.locator('#merchants tbody tr').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.merchant))).toEqual([wanted]);
    await page.locator('#merchants tbody a').first().click();
    await page.waitForSelector('main#view[data-view="merchant"][data-ready="true"]');
    expect(new URL(page.url()).pathname).toBe(`/__sandbox/dashboard/merchants/${wanted}`);
    await screenshot(page, 'dashboard-bounds');

    await Promise.all(pending);
    const merchantCalls = answers.filter((answer) => answer.path.startsWith('/__sandbox/merchants'));
    expect(merchantCalls.length).toBeGreaterThan(0);
    for (const answer of answers) expect(answer.bytes, answer.path).toBeLessThanOrEqual(BODY_AT_MOST);
  });
});

describe('references a URL path cannot carry', { timeout: 20_000 }, () => {
  it('settles payments whose paymentReference is `.` and `..` from the dashboard', async () => {
    for (const paymentReference of ['.', '..']) {
      expect((await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference }))).body.data.code).toBe('20');
    }
    await open(`merchants/${merchant.publicKey}`, 'merchant');

    const row = (reference: string) => page.locator(`#payments tbody tr[data-reference="${reference}"]`);
    await row('.').getByRole('button', { name: 'Succeed' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent === '. succeeded.');
    await row('..').getByRole('button', { name: 'Fail' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent === '.. failed.');

    expect(sandbox.store.payment(merchant.publicKey, '.')?.status).toBe('SUCCESSFUL');
    expect(sandbox.store.payment(merchant.publicKey, '..')?.status).toBe('FAILED');
    await expect.poll(() => row('.').locator('td.status-SUCCESSFUL').count()).toBe(1);
    await expect.poll(() => row('..').locator('td.status-FAILED').count()).toBe(1);
  });
});
