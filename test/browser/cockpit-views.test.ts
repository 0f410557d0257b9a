// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { accountPayment, ApiClient, cardPayment, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

/**
 * The dashboard's views, each opened by its own address as a tester would
 * bookmark it: the shell's conventions (`main#view[data-view]`,
 * `data-ready`), the header's current link, the unknown address, and what
 * each view shows of a staged sandbox.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let other: TestMerchant;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const base = () => `${sandbox.url}/__sandbox/dashboard/`;

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
  other = await api.merchant();
  await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'VIEW-CARD-1' }));
  await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'VIEW-ACC-1' }));
  await api.as(other, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'OTHER-CARD-1' }));
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (error) => errors.push(error.message));
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

/** Opens an address and waits until its view has drawn what it read. */
async function open(path: string, view: string) {
  await page.goto(`${base()}${path}`);
  await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`);
}

describe('the dashboard\'s addresses', { timeout: 20_000 }, () => {
  it('sends /__sandbox and /__sandbox/ to the overview with 303', async () => {
    for (const target of ['/__sandbox', '/__sandbox/', '/__sandbox/dashboard']) {
      const answer = await fetch(`${sandbox.url}${target}`, { redirect: 'manual' });
      expect({ target, status: answer.status, location: answer.headers.get('location') }).toEqual({ target, status: 303, location: '/__sandbox/dashboard/' });
    }
    const kept = await fetch(`${sandbox.url}/__sandbox/dashboard?q=abc`, { redirect: 'manual' });
    expect(kept.headers.get('location')).toBe('/__sandbox/dashboard/?q=abc');
  });

  it('answers an unknown view 404, and the page says there is no such view', async () => {
    const answer = await fetch(`${base()}no-such-view`);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
    await open('no-such-view', 'not-found');
    expect(await page.locator('main h1').textContent()).toBe('No such view');
    await open('merchants/x/payments', 'not-found');
  });

  it.each([
    ['', 'overview', 'overview'],
    ['notifications', 'notifications', 'notifications'],
    ['clock', 'clock', 'clock'],
    ['scenarios', 'scenarios', 'scenarios'],
    ['journal', 'journal', 'journal'],
  ])('opens /__sandbox/dashboard/%s as the %s view, its header link current', async (path, view, nav) => {
    await open(path, view);
    expect(await page.locator('#views a[aria-current="page"]').getAttribute('data-nav')).toBe(nav);
    expect(await page.locator('#views a[aria-current="page"]').count()).toBe(1);
  });

  it('opens a merchant\'s view and a payment\'s story by their addresses', async () => {
    await open(`merchants/${merchant.publicKey}`, 'merchant');
    const payments = await page.locator('#payments tbody').textContent();
    expect(payments).toContain('VIEW-CARD-1');
    expect(payments).not.toContain('OTHER-CARD-1');
    await open(`merchants/${merchant.publicKey}/payments/VIEW-CARD-1`, 'payment');
    expect(await page.locator('#summary').textContent()).toContain('PENDING');
    await screenshot(page, 'cockpit-story');
  });

  it('follows its own links without reloading the page, and back returns', async () => {
    await open('', 'overview');
    await page.evaluate(() => { (window as unknown as { marker: number }).marker = 1; });
    await page.locator('#merchants a', { hasText: merchant.publicKey.slice(0, 8) }).first().click();
    await page.waitForSelector('main#view[data-view="merchant"][data-ready="true"]');
    expect(new URL(page.url()).pathname).toBe(`/__sandbox/dashboard/merchants/${merchant.publicKey}`);
    await page.goBack();
    await page.waitForSelector('main#view[data-view="overview"][data-ready="true"]');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
  });

  it('shortens a long reference in its middle, the whole of it in its title, copied by a named button', async () => {
    const long = 'VIEW-A-REFERENCE-LONG-ENOUGH-TO-BE-SHORTENED-0001';
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: long }));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sandbox.url });
    await open(`merchants/${merchant.publicKey}`, 'merchant');
    const shown = page.locator(`#payments tr[data-reference="${long}"] td[data-one-line] .short`).first();
    expect(await shown.getAttribute('title')).toBe(long);
    expect(await shown.textContent()).toMatch(/^VIEW-A-REF.*….*-0001$/);
    await page.getByRole('button', { name: `Copy paymentReference ${long}` }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(long);
  });

  it('reaches the header\'s controls by keyboard, with a visible focus, and the pause switch toggles by key', async () => {
    await open('', 'overview');
    const pause = page.locator('#pause');
    for (let n = 0; n < 20 && !(await pause.evaluate((element) => element === document.activeElement)); n += 1) await page.keyboard.press('Tab');
    expect(await pause.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await pause.evaluate((element) => getComputedStyle(element).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    expect(await pause.getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('Space');
    expect(await pause.getAttribute('aria-pressed')).toBe('false');
  });

  it('reads the live events with the last id it saw on reconnecting, and refetches on a reload event', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const tab = await context.newPage();
    const asked: Array<string | undefined> = [];
    // The first stream ends after one event, as a restarted sandbox or a proxy would end it; the next goes through.
    await tab.route('**/__sandbox/events', async (route) => {
      asked.push(route.request().headers()['last-event-id']);
      if (asked.length > 1) return route.continue();
      await route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: ': connected\n\nid: 41\ndata: {"id":41,"at":"2026-01-01T00:00:00.000Z","kind":"reload"}\n\n' });
    });
    let reads = 0;
    tab.on('request', (request) => { if (new URL(request.url()).pathname === '/__sandbox/overview') reads += 1; });
    await tab.goto(base());
    await tab.waitForSelector('main#view[data-view="overview"][data-ready="true"]');
    await expect.poll(() => asked.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    expect(asked.slice(0, 2)).toEqual([undefined, '41']);
    // The reload event made the view read its state again.
    await expect.poll(() => reads, { timeout: 2000 }).toBeGreaterThanOrEqual(2);
    await context.close();
  });

  it('ran without a script error', () => {
    expect(errors).toEqual([]);
  });
});
