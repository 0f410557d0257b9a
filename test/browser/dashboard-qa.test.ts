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

describe('the dashboard for QA', () => {
  it('shows statuses on one line, the refunded amount and the merchant, and opens a journal row to its redacted request', async () => {
    await paidCard('QA-CARD-REFUNDED');
    await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'QA-CARD-REFUNDED', amount: '1500.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    await paidCard('QA-CARD-PARTLY');
    await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'QA-CARD-PARTLY', amount: '250.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    await page.goto(`${sandbox.url}/__sandbox/`);
    await page.waitForSelector('body[data-ready="true"]');

    const refundedRow = page.locator('#payments tbody tr', { hasText: 'QA-CARD-REFUNDED' });
    const status = refundedRow.locator('td.status');
    expect(await status.textContent()).toBe('REFUNDED');
    // One line: the word lays out in one line box, whatever the row's height.
    const lines = (locator: typeof status) => locator.evaluate((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
    });
    for (const row of await page.locator('#payments tbody td.status').all()) expect(await lines(row)).toBe(1);
    expect(await lines(refundedRow.locator('td.refunded'))).toBe(1);
    expect(await refundedRow.locator('td.refunded').textContent()).toBe('NGN 1500.00');
    expect(await page.locator('#payments tbody tr', { hasText: 'QA-CARD-PARTLY' }).locator('td.refunded').textContent()).toBe('NGN 250.00');
    expect(await refundedRow.locator('td[title]').first().getAttribute('title')).toBe(merchant.publicKey);

    const initiateRow = page.locator('#journal tbody tr', { hasText: '/payments/initiates' }).first();
    await initiateRow.locator('summary').click();
    const details = await initiateRow.locator('pre').textContent();
    expect(details).toContain('"paymentReference"');
    expect(details).toContain('512345******0008');
    expect(details).not.toContain('5123450000000008');
    expect(details).not.toContain('"cvv": "123"');
    await screenshot(page, 'dashboard-qa');
  });

  it('refreshes itself while asked to, and stops when asked', async () => {
    await page.goto(`${sandbox.url}/__sandbox/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.getByLabel('Refresh every 2 s').check();
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'QA-ARRIVES-1' }));
    await page.waitForSelector('#payments tbody tr:has-text("QA-ARRIVES-1")', { timeout: 8_000 });
    await page.getByLabel('Refresh every 2 s').uncheck();
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'QA-ARRIVES-2' }));
    await page.waitForTimeout(3_000);
    expect(await page.locator('#payments tbody').textContent()).not.toContain('QA-ARRIVES-2');
  }, 20_000);
});
