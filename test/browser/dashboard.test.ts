// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ApiClient, cardPayment, order, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let other: TestMerchant;
let browser: Browser;
let page: Page;
const controlCalls: string[] = [];

beforeAll(async () => {
  sandbox = await listeningSandbox();
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

/** Opens a view by its address and waits until it has drawn what it read. */
async function open(path: string, view: string) {
  await page.goto(`${sandbox.url}/__sandbox/dashboard/${path}`);
  await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`);
}

const showMerchant = (shown: TestMerchant) => open(`merchants/${shown.publicKey}`, 'merchant');

describe('the dashboard', { timeout: 20_000 }, () => {
  it('shows payments, orders and the journal per merchant', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'DASH-CARD-1' }));
    await api.as(merchant, 'POST', '/payments/order', order({ paymentReference: 'DASH-ORD-1' }));
    // A number amount is accepted with a warning, which the journal table shows.
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'DASH-CARD-2', amount: 1500 }));
    await api.as(other, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'OTHER-CARD-1' }));
    await showMerchant(merchant);
    const payments = await page.locator('#payments tbody').textContent();
    expect(payments).toContain('PENDING');
    expect(payments).not.toContain('OTHER-CARD-1');
    expect(await page.locator('#orders tbody').textContent()).toContain('DASH-ORD-1');
    await open(`journal?publicKey=${merchant.publicKey}`, 'journal');
    expect(await page.locator('#journal tbody').textContent()).toContain('/payments/initiates');
    expect(await page.locator('#journal tbody').textContent()).not.toContain('OTHER-CARD-1');
    expect(await page.locator('#journal tbody td.warnings').first().textContent()).toBe('amount: a JSON number, the spec sends a string');
  });

  it('shows what a pre-authorisation captured, and a subscription\'s next charge, its charges and the clock\'s charge due', async () => {
    const owner = await api.merchant();
    await api.as(owner, 'POST', '/payments/authorise', cardPayment({ paymentReference: 'DASH-PREAUTH-1', amount: '100.00' }));
    await api.as(owner, 'POST', '/payments/capture', { paymentReference: 'DASH-PREAUTH-1', amount: '40.00', currency: 'NGN', country: 'NG' });
    const started = await api.as(owner, 'POST', '/recurring/subscribes', {
      paymentReference: 'DASH-SUB-1', amount: '1000.00', currency: 'NGN', country: 'NG', cardNumber: '5123450000000008', cvv: '100', expiryMonth: '05', expiryYear: '30',
      billingCycle: 'WEEKLY', startDate: '2020-02-25 00:00:00',
    });
    await api.as(owner, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
    const next = sandbox.store.payment(owner.publicKey, 'DASH-SUB-1')!.subscription!.nextChargeAt!;
    await showMerchant(owner);
    const rowOf = (reference: string) => page.locator('#payments tbody tr', { hasText: reference }).first().textContent();
    expect(await rowOf('DASH-PREAUTH-1')).toContain('(captured 40.00)');
    expect(await page.locator('#clock').textContent()).toContain('subscription charge of DASH-SUB-1');
    await open(`merchants/${owner.publicKey}/payments/DASH-SUB-1`, 'payment');
    expect(await page.locator('#summary').textContent()).toContain(`weekly NGN 1000.00, next charge ${next.slice(0, 10)} ${next.slice(11, 19)} UTC (0 charged)`);
    await open(`clock?publicKey=${owner.publicKey}`, 'clock');
    expect(await page.locator('section.clock tbody').textContent()).toContain('subscription charge');
  });

  it('a scenario switched on the dashboard changes the next API response', async () => {
    await open(`scenarios?publicKey=${merchant.publicKey}`, 'scenarios');
    await page.getByLabel('Next requests (empty: until removed)').fill('1');
    await page.getByRole('button', { name: 'Force card-declined', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('#overrides tbody')?.textContent?.includes('card-declined'));
    await showMerchant(merchant);
    expect(await page.locator('#overrides').textContent()).toContain('card-declined');
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
    await showMerchant(merchant);
    await page.locator('#payments tbody tr', { hasText: 'DASH-CARD-1' }).getByRole('button', { name: 'Succeed' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent?.includes('DASH-CARD-1 succeeded'));
    expect(sandbox.store.payment(merchant.publicKey, 'DASH-CARD-1')?.status).toBe('SUCCESSFUL');
    // The confirmation names what a reset returns to (docs/decisions.md#d85-reset-returns-to-the-start-files).
    page.once('dialog', (dialog) => {
      expect(dialog.message()).toMatch(/start-up state: what --snapshot and --fixtures made of it, or nothing without them/);
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Reset this merchant' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent?.startsWith('Reset '));
    expect(sandbox.store.payments(merchant.publicKey)).toEqual([]);
    expect(sandbox.store.payments(other.publicKey).length).toBeGreaterThan(0);
  });

  it('is used through the control API and its own files alone', () => {
    const outside = controlCalls.filter((path) => !path.startsWith('/__sandbox') && !path.startsWith('/pages/assets/dashboard/') && path !== '/pages/assets/bar.css' && path !== '/pages/assets/favicon.svg');
    expect(outside).toEqual([]);
    expect(controlCalls.some((path) => path.startsWith('/__sandbox/overrides'))).toBe(true);
  });
});
