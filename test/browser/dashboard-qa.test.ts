// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ApiClient, cardPayment, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

/** The dashboard for QA: what a tester reads at 1280 px, opens, and watches arrive. */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

async function paidCard(reference: string): Promise<void> {
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: reference }));
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
}

/** Opens a view by its address and waits until it has drawn what it read. */
async function open(path: string, view: string) {
  await page.goto(`${sandbox.url}/__sandbox/dashboard/${path}`);
  await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`);
}

describe('the dashboard for QA', () => {
  it('shows statuses on one line, the refunded amount and the merchant, and opens a journal row to its redacted request', { timeout: 20_000 }, async () => {
    await paidCard('QA-CARD-REFUNDED');
    await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'QA-CARD-REFUNDED', amount: '1500.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    await paidCard('QA-CARD-PARTLY');
    await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'QA-CARD-PARTLY', amount: '250.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    await open(`merchants/${merchant.publicKey}`, 'merchant');

    const refundedRow = page.locator('#payments tbody tr', { hasText: 'QA-CARD-REFUNDED' });
    const status = refundedRow.locator('td.status-REFUNDED');
    expect(await status.textContent()).toBe('REFUNDED');
    // One line: the cell's text boxes (its link's and its copy button's too) all overlap one band, whatever the row's height.
    const lines = (locator: typeof status) => locator.evaluate((td) => {
      const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      const rects: DOMRect[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        rects.push(...[...range.getClientRects()].filter((rect) => rect.height > 0));
      }
      rects.sort((a, b) => a.top - b.top);
      let count = 0;
      let bottom = -Infinity;
      for (const rect of rects) {
        if (rect.top >= bottom - 1) count += 1;
        bottom = Math.max(bottom, rect.bottom);
      }
      return count;
    });
    for (const cell of await page.locator('#payments tbody td[data-one-line]').all()) expect(await lines(cell)).toBe(1);
    const refunded = (row: typeof refundedRow) => row.locator('td').nth(6).textContent();
    expect(await refunded(refundedRow)).toBe('NGN 1500.00');
    expect(await refunded(page.locator('#payments tbody tr', { hasText: 'QA-CARD-PARTLY' }))).toBe('NGN 250.00');
    // The merchant's key, whole in the title of its shortened form, with a button that copies it.
    expect(await page.locator('main h1 span.short').getAttribute('title')).toBe(merchant.publicKey);
    expect(await page.getByRole('button', { name: `Copy publicKey ${merchant.publicKey}` }).count()).toBe(1);
    expect(await refundedRow.getByRole('button', { name: 'Copy paymentReference QA-CARD-REFUNDED' }).count()).toBe(1);

    await open(`journal?path=/payments/initiates&publicKey=${merchant.publicKey}`, 'journal');
    const initiateRow = page.locator('#journal tbody tr.entry', { hasText: '/payments/initiates' }).first();
    await initiateRow.getByRole('button', { name: /^Open entry \d+: POST \/payments\/initiates$/ }).click();
    // The entry opens in a row of its own, across the whole table.
    const opened = page.locator(`#${await initiateRow.getByRole('button').last().getAttribute('aria-controls')}`);
    await opened.waitFor({ state: 'visible' });
    expect(await opened.locator('td').getAttribute('colspan')).toBe('9');
    const details = await opened.locator('pre').first().textContent();
    expect(details).toContain('"paymentReference"');
    expect(details).toContain('512345******0008');
    expect(details).not.toContain('5123450000000008');
    expect(details).not.toContain('"cvv": "123"');
    await screenshot(page, 'dashboard-qa');
  });

  it('shows a payment made meanwhile without being asked, and holds it while paused', async () => {
    await open(`merchants/${merchant.publicKey}`, 'merchant');
    await page.waitForSelector('main#view[data-live="true"]');
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'QA-ARRIVES-1' }));
    await page.waitForSelector('#payments tbody tr:has-text("QA-ARRIVES-1")', { timeout: 2_000 });
    await page.getByRole('button', { name: 'Pause live updates' }).click();
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'QA-ARRIVES-2' }));
    await page.waitForFunction(() => Number(document.getElementById('pause')?.dataset.waiting) > 0);
    await page.waitForTimeout(1_500);
    expect(await page.locator('#payments tbody').textContent()).not.toContain('QA-ARRIVES-2');
    await page.getByRole('button', { name: /^Resume live updates/ }).click();
    await page.waitForSelector('#payments tbody tr:has-text("QA-ARRIVES-2")', { timeout: 2_000 });
  }, 20_000);
});
