// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ApiClient, cardPayment, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser } from './support.js';

/**
 * The dashboard of a sandbox started with a control token: it asks for the
 * token in a password field, keeps it for the tab only, and sends it with
 * every control request; a wrong one is refused and asked for again.
 */

const TOKEN = 'dash-token-7c1e';
let sandbox: Sandbox;
let browser: Browser;
let page: Page;
let merchant: TestMerchant;
const sent: Array<{ path: string; authorization?: string; contentType?: string; method: string }> = [];

beforeAll(async () => {
  sandbox = await listeningSandbox({ controlToken: TOKEN });
  const api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
  await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'DASH-TOKEN-1' }));
  browser = await launchBrowser();
  page = await browser.newPage();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/__sandbox/') && !url.pathname.startsWith('/__sandbox/dashboard')) {
      sent.push({ path: url.pathname, method: request.method(), authorization: request.headers().authorization, contentType: request.headers()['content-type'] });
    }
  });
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

describe('the dashboard of a sandbox with a control token', () => {
  it('asks for the token, then shows the state; a wrong token is asked for again', { timeout: 15_000 }, async () => {
    await page.goto(`${sandbox.url}/__sandbox/dashboard/merchants/${merchant.publicKey}`);
    const field = page.getByLabel('Token', { exact: true });
    await field.waitFor({ state: 'visible' });
    expect(await field.getAttribute('type')).toBe('password');
    expect(await page.locator('#notice').textContent()).toContain('Authorization');

    await field.fill('not-the-token');
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent?.includes('not the one'));
    expect(await page.locator('#token-section').isVisible()).toBe(true);

    await field.fill(TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.waitForSelector('main#view[data-ready="true"]');
    await page.waitForFunction(() => document.querySelector('#payments tbody')?.textContent?.includes('DASH-TOKEN-1'));
    expect(await page.locator('#token-section').isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.getItem('payments-sandbox.control-token'))).toBe(TOKEN);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(sent.filter((request) => request.authorization === `Bearer ${TOKEN}`).length).toBeGreaterThan(0);
    // The live events too, read with fetch() so that the token goes with them.
    await page.waitForSelector('main#view[data-live="true"]');
    expect(sent.find((request) => request.path === '/__sandbox/events' && request.authorization === `Bearer ${TOKEN}`)).toBeDefined();
  });

  it('sends the token and JSON with a state-changing request, which the control API takes', { timeout: 15_000 }, async () => {
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForSelector('main#view[data-view="overview"][data-ready="true"]');
    await page.getByRole('button', { name: 'Reset everything' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent === 'Reset everything.');
    const reset = sent.find((request) => request.path === '/__sandbox/reset');
    expect(reset).toMatchObject({ method: 'POST', authorization: `Bearer ${TOKEN}`, contentType: 'application/json' });
    expect(asked).toEqual([expect.stringMatching(/^Return every merchant to the start-up state: what --snapshot and --fixtures made, or nothing without them\./)]);
    expect(sandbox.store.payments(sandbox.store.merchants()[0]!.publicKey)).toEqual([]);
  });
});
