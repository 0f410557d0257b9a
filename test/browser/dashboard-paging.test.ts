// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { orderRecord, paymentRecord } from '../store/fixtures.js';
import { ApiClient, cardPayment, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

/**
 * The dashboard reads payments, orders and the journal a page at a time
 * (control-api.yaml, "Paging"): it shows the first page, moves forward and
 * back, and never asks for a whole list.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;
const listCalls: URL[] = [];

const PAYMENTS = 120;
const JOURNALLED = 30;

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
  // Straight into the store: what is tested is the listing, not how payments come to be.
  for (let n = 0; n < PAYMENTS; n += 1) {
    const payment = paymentRecord(merchant.publicKey, n);
    sandbox.store.putPayment(payment);
    if (n < 60) sandbox.store.putOrder(orderRecord(merchant.publicKey, payment.paymentReference));
  }
  for (let n = 0; n < JOURNALLED; n += 1) {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: `SBREF-JOURNAL-${String(n).padStart(2, '0')}` }));
  }
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== '127.0.0.1') return route.abort();
    if (/^\/__sandbox\/(payments|orders|requests)$/.test(url.pathname)) listCalls.push(url);
    return route.continue();
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

const pager = (name: string) => page.getByRole('navigation', { name: `${name} pages` });
// A reference cell shows it shortened when long, the whole of it in its title.
const firstReference = (table: string) => page.locator(`${table} tbody tr`).first().locator('td').first().locator('[title]').first().getAttribute('title');

async function onPage(list: string, number: number) {
  await page.waitForSelector(`nav[data-list="${list}"][data-page="${number}"]`);
}

describe('the dashboard pages through long lists', { timeout: 20_000 }, () => {
  it('shows the first page of payments and moves to the next and back', async () => {
    await page.goto(`${sandbox.url}/__sandbox/dashboard/merchants/${merchant.publicKey}`);
    await page.waitForSelector('main#view[data-ready="true"]');

    // The merchant's 120 stored payments and the 30 of the journal's initiates.
    const total = PAYMENTS + JOURNALLED;
    await expect.poll(() => page.locator('#payments tbody tr').count()).toBe(50);
    expect(await firstReference('#payments')).toBe('SBREF-STORE-0000');
    expect(await pager('Payments').textContent()).toContain(`1–50 of ${total}`);
    await expect.poll(() => pager('Payments').getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

    await pager('Payments').getByRole('button', { name: 'Next' }).click();
    await onPage('payments', 2);
    expect(await firstReference('#payments')).toBe('SBREF-STORE-0050');
    expect(await page.locator('#payments tbody tr').count()).toBe(50);
    expect(await pager('Payments').textContent()).toContain(`51–100 of ${total}`);
    await screenshot(page, 'dashboard-paging');

    await pager('Payments').getByRole('button', { name: 'Next' }).click();
    await onPage('payments', 3);
    expect(await pager('Payments').textContent()).toContain(`101–150 of ${total}`);
    expect(await pager('Payments').getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    await pager('Payments').getByRole('button', { name: 'Previous' }).click();
    await onPage('payments', 2);
    expect(await firstReference('#payments')).toBe('SBREF-STORE-0050');
  });

  it('pages orders and the journal on their own', async () => {
    // Orders: 20 a page, one row per item (one item each here).
    expect(await pager('Orders').textContent()).toContain('1–20 of 60');
    await pager('Orders').getByRole('button', { name: 'Next' }).click();
    await onPage('orders', 2);
    expect(await firstReference('#orders')).toBe('SBREF-STORE-0020');
    expect(await pager('Orders').textContent()).toContain('21–40 of 60');
    // Paging one list leaves the others where they were.
    await onPage('payments', 2);

    // The journal, newest first: Next shows the older requests.
    await page.goto(`${sandbox.url}/__sandbox/dashboard/journal`);
    await page.waitForSelector('main#view[data-view="journal"][data-ready="true"]');
    expect(await pager('Journal').textContent()).toContain(`1–25 of ${JOURNALLED + 1}`);
    await pager('Journal').getByRole('button', { name: 'Next' }).click();
    await onPage('requests', 2);
    // Each entry is a row, and a closed row for its request and response.
    expect(await page.locator('#journal tbody tr.entry').count()).toBe(6);
    expect(await page.locator('#journal tbody').textContent()).toContain('SBREF-JOURNAL-00');
  });

  it('asks for one bounded page at a time, never a whole list', () => {
    expect(listCalls.length).toBeGreaterThan(0);
    for (const url of listCalls) {
      expect(Number(url.searchParams.get('limit')), url.href).toBeGreaterThanOrEqual(1);
      expect(Number(url.searchParams.get('limit')), url.href).toBeLessThanOrEqual(50);
    }
  });
});
