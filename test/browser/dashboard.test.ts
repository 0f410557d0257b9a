import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ApiClient, cardPayment, order, sandboxForTest, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let other: TestMerchant;
let browser: Browser;
let page: Page;
const controlCalls: string[] = [];

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
  other = await api.merchant();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  // Offline, and through the control API only: record every request the dashboard makes.
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== '127.0.0.1') return route.abort();
    controlCalls.push(url.pathname);
    return route.continue();
  });
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

async function openDashboard() {
  await page.goto(`${sandbox.url}/__sandbox/`);
  await page.waitForSelector('body[data-ready="true"]');
}

async function showMerchant(shown: TestMerchant) {
  await page.getByLabel('Show the state of').selectOption(shown.publicKey);
  await page.waitForSelector(`body[data-shown="${shown.publicKey}"]`);
}

describe('the dashboard', () => {
  it('shows payments, orders and the journal per merchant', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'DASH-CARD-1' }));
    await api.as(merchant, 'POST', '/payments/order', order({ paymentReference: 'DASH-ORD-1' }));
    // A number amount is accepted with a warning, which the journal table shows.
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'DASH-CARD-2', amount: 1500 }));
    await api.as(other, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'OTHER-CARD-1' }));
    await openDashboard();
    await showMerchant(merchant);
    const payments = await page.locator('#payments tbody').textContent();
    expect(payments).toContain('PENDING');
    expect(payments).not.toContain('OTHER-CARD-1');
    expect(await page.locator('#orders tbody').textContent()).toContain('DASH-ORD-1');
    expect(await page.locator('#journal tbody').textContent()).toContain('/payments/initiates');
    expect(await page.locator('#journal tbody td.warnings').first().textContent()).toBe('amount: a JSON number, the spec sends a string');
  });

  it('a scenario switched on the dashboard changes the next API response', async () => {
    await openDashboard();
    await showMerchant(merchant);
    await page.getByLabel('Scenario', { exact: true }).selectOption('card-declined');
    await page.getByLabel('For', { exact: true }).selectOption('merchant');
    await page.getByLabel('Requests (empty: until removed)').fill('1');
    await page.getByRole('button', { name: 'Set override' }).click();
    await page.waitForFunction(() => document.querySelector('#overrides tbody')?.textContent?.includes('card-declined'));
    await screenshot(page, 'dashboard');

    const declined = await api.as(merchant, 'POST', '/payments/initiates', cardPayment());
    expect(declined.body.data.code).toBe('S12');
    expect(declined.headers['x-sandbox-scenario']).toBe('card-declined');
    const unaffected = await api.as(other, 'POST', '/payments/initiates', cardPayment());
    expect(unaffected.body.data.code).toBe('S20');
    const next = await api.as(merchant, 'POST', '/payments/initiates', cardPayment());
    expect(next.body.data.code).toBe('S20');
  });

  it('settles a pending payment and resets a merchant', async () => {
    await openDashboard();
    await showMerchant(merchant);
    await page.locator('#payments tbody tr', { hasText: 'DASH-CARD-1' }).getByRole('button', { name: 'Succeed' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent?.includes('DASH-CARD-1 succeeded'));
    expect(sandbox.store.payment(merchant.publicKey, 'DASH-CARD-1')?.status).toBe('SUCCESSFUL');
    await page.getByRole('button', { name: 'Reset this merchant' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent?.startsWith('Reset '));
    expect(sandbox.store.payments(merchant.publicKey)).toEqual([]);
    expect(sandbox.store.payments(other.publicKey).length).toBeGreaterThan(0);
  });

  it('is used through the control API and its own files alone', () => {
    const outside = controlCalls.filter((path) => !path.startsWith('/__sandbox') && !path.startsWith('/pages/assets/'));
    expect(outside).toEqual([]);
    expect(controlCalls.some((path) => path.startsWith('/__sandbox/overrides'))).toBe(true);
  });
});
