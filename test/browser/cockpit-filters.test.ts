// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { accountPayment, ApiClient, cardPayment, listeningSandbox, transferPayment, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser } from './support.js';

/**
 * The dashboard's filters, each a query parameter of the view's address:
 * setting one narrows the list the server answers, the address can be
 * bookmarked (opening it shows the same list), and back and forward return
 * to the lists before and after. Also the overview's counts, the faults
 * form, the clock's advance to a time and an override forced from the
 * catalogue.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const asked: URL[] = [];

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
  merchant = await api.merchant();
  await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'FILTER-CARD-1' }));
  await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'FILTER-CARD-2' }));
  await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'FILTER-ACC-1' }));
  await api.as(merchant, 'POST', '/payments/initiates', transferPayment({ paymentReference: 'FILTER-TRF-1' }));
  await control.send('POST', '/payments/complete', { body: { paymentReference: 'FILTER-CARD-2', publicKey: merchant.publicKey, outcome: 'failure' } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/__sandbox/') && !url.pathname.startsWith('/__sandbox/dashboard')) asked.push(url);
  });
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

async function open(path: string, view: string) {
  await page.goto(`${sandbox.url}/__sandbox/dashboard/${path}`);
  await ready(view);
}
const ready = (view: string) => page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"]`);
const references = () => page.locator('#payments tbody tr[data-reference]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.reference));

describe('the merchant\'s payment filters', { timeout: 30_000 }, () => {
  it('narrows the list by status, method, result code and reference, each in the address', async () => {
    await open(`merchants/${merchant.publicKey}`, 'merchant');
    expect(await references()).toEqual(['FILTER-CARD-1', 'FILTER-CARD-2', 'FILTER-ACC-1', 'FILTER-TRF-1']);

    await page.getByLabel('Status', { exact: true }).selectOption('FAILED');
    await page.waitForFunction(() => location.search === '?status=FAILED');
    await ready('merchant');
    expect(await references()).toEqual(['FILTER-CARD-2']);
    expect(asked.some((url) => url.pathname === '/__sandbox/payments' && url.searchParams.get('status') === 'FAILED')).toBe(true);

    await page.getByLabel('Status', { exact: true }).selectOption('');
    await ready('merchant');
    await page.getByLabel('Method', { exact: true }).selectOption('CARD');
    await page.waitForFunction(() => location.search === '?method=CARD');
    await ready('merchant');
    expect(await references()).toEqual(['FILTER-CARD-1', 'FILTER-CARD-2']);

    await page.getByLabel('Reference contains').fill('card-1');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('q') === 'card-1');
    await ready('merchant');
    expect(await references()).toEqual(['FILTER-CARD-1']);

    // Back: the list before the search, its filter back in its field.
    await page.goBack();
    await ready('merchant');
    expect(await references()).toEqual(['FILTER-CARD-1', 'FILTER-CARD-2']);
    expect(await page.getByLabel('Reference contains').inputValue()).toBe('');
    await page.goForward();
    await ready('merchant');
    expect(await references()).toEqual(['FILTER-CARD-1']);
  });

  it('opens a bookmarked filtered address as the same list', async () => {
    const code = sandbox.store.payment(merchant.publicKey, 'FILTER-CARD-2')!.code;
    await open(`merchants/${merchant.publicKey}?code=${code}&order=newest`, 'merchant');
    expect(await references()).toEqual(['FILTER-CARD-2']);
    expect(await page.getByLabel('Result code').inputValue()).toBe(code);
    await open(`merchants/${merchant.publicKey}?order=newest`, 'merchant');
    expect(await references()).toEqual(['FILTER-TRF-1', 'FILTER-ACC-1', 'FILTER-CARD-2', 'FILTER-CARD-1']);
    // A time range on the merchant's clock: from is inclusive, to exclusive; nothing was made before the epoch of 2000.
    await open(`merchants/${merchant.publicKey}?to=2000-01-01T00:00:00Z`, 'merchant');
    expect(await references()).toEqual([]);
    expect(await page.locator('#payments tbody').textContent()).toBe('No payment matches these filters.');
  });
});

describe('the other views\' filters and forms', { timeout: 30_000 }, () => {
  it('the overview counts the merchant\'s payments by state', async () => {
    await open('', 'overview');
    const row = page.locator(`#merchants tbody tr[data-merchant="${merchant.publicKey}"]`);
    expect(await row.locator('td').nth(1).textContent()).toBe('4');
    expect(await row.locator('td').nth(2).textContent()).toContain('FAILED 1');
  });

  it('the overview names a failing receiver, and links to its deliveries', async () => {
    const failing = await api.merchant();
    // The fault answers in the receiver's place: nothing is sent anywhere.
    await control.send('PUT', `/webhooks/${failing.publicKey}`, { body: { url: 'http://127.0.0.1:9/webhook' } });
    await control.send('POST', `/webhooks/${failing.publicKey}/faults`, { body: { kind: 'receiver-error', status: 500, attempts: 3 } });
    const started = await api.as(failing, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'FILTER-FAILING-1' }));
    await api.as(failing, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
    await expect.poll(() => sandbox.store.deliveries(failing.publicKey)[0]?.attempts.length ?? 0, { timeout: 5000 }).toBeGreaterThan(0);
    await open('', 'overview');
    const row = page.locator(`#merchants tbody tr[data-merchant="${failing.publicKey}"]`);
    expect(await row.locator('td').last().textContent()).toBe('1');
    const named = page.locator('section', { has: page.locator('#failing-title') }).getByRole('link', { name: failing.publicKey });
    await named.click();
    await ready('notifications');
    expect(new URL(page.url()).searchParams.get('publicKey')).toBe(failing.publicKey);
    expect(await page.locator('#deliveries > tbody').textContent()).toContain('FILTER-FAILING-1');
  });

  it('the journal narrows by path, status, scenario and reference', async () => {
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: 'SBLNK_nosuchlink0000000000', otp: '123456' });
    await open(`journal?publicKey=${merchant.publicKey}`, 'journal');
    const paths = () => page.locator('#journal tbody tr.entry').evaluateAll((rows) => rows.map((row) => row.children[2]!.textContent));
    expect(await paths()).toEqual(expect.arrayContaining(['/payments/initiates', '/payments/validate']));
    await page.getByLabel('Path').fill('/payments/validate');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('path') === '/payments/validate');
    await ready('journal');
    expect(await paths()).toEqual(['/payments/validate']);
    await open(`journal?publicKey=${merchant.publicKey}&status=200`, 'journal');
    expect(await paths()).toContain('/payments/initiates');
    expect(await paths()).not.toContain('/payments/validate');

    // The scenario and the reference, each from its field of the form.
    const scenario = (await control.send('GET', '/requests', { query: { paymentReference: 'FILTER-TRF-1', publicKey: merchant.publicKey } })).body.requests[0].scenario as string;
    await open(`journal?publicKey=${merchant.publicKey}`, 'journal');
    await page.getByLabel('Scenario', { exact: true }).fill(scenario);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction((name) => new URLSearchParams(location.search).get('scenario') === name, scenario);
    await ready('journal');
    const scenarios = await page.locator('#journal tbody tr.entry').evaluateAll((rows) => rows.map((row) => row.children[4]!.textContent));
    expect(scenarios.length).toBeGreaterThan(0);
    expect(new Set(scenarios)).toEqual(new Set([scenario]));
    await page.getByLabel('Scenario', { exact: true }).fill('');
    await page.getByLabel('paymentReference', { exact: true }).fill('FILTER-ACC-1');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('paymentReference') === 'FILTER-ACC-1');
    await ready('journal');
    expect(await paths()).toEqual(['/payments/initiates']);
  });

  it('sets a notification fault with its fields, and filters deliveries by state and event type', async () => {
    await open(`notifications?publicKey=${merchant.publicKey}`, 'notifications');
    await page.getByLabel('Fault', { exact: true }).selectOption('receiver-error');
    await page.getByLabel('Status (receiver-error)').fill('503');
    await page.getByLabel('Attempts (receiver-error)').fill('2');
    expect(await page.getByLabel('Delay (late)').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Set fault' }).click();
    await page.waitForFunction(() => document.querySelector('#fault-list tbody')?.textContent?.includes('receiver-error'));
    expect((await control.send('GET', `/webhooks/${merchant.publicKey}`)).body.faults).toEqual([expect.objectContaining({ kind: 'receiver-error', status: 503, attempts: 2, times: 1 })]);
    await page.getByLabel('State', { exact: true }).selectOption('delivered');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('state') === 'delivered');
    await ready('notifications');
    expect(asked.some((url) => url.pathname === '/__sandbox/webhooks/deliveries' && url.searchParams.get('state') === 'delivered')).toBe(true);
    await page.getByLabel('Event type').selectOption('refund');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('eventType') === 'refund');
    await ready('notifications');
    await page.getByRole('button', { name: 'Remove every fault' }).click();
    await page.waitForFunction(() => document.querySelector('#fault-list tbody')?.textContent?.includes('No fault'));
  });

  it('advances a clock to a time, and forces a scenario for the next request of a merchant', async () => {
    await open(`clock?publicKey=${merchant.publicKey}`, 'clock');
    const to = new Date(Date.now() + 3 * 3600_000).toISOString();
    await page.getByLabel('Advance to (ISO 8601 time)').fill(to);
    await page.getByRole('button', { name: 'Advance to', exact: true }).click();
    // The clock at real time reads `PT0S (real time)`: the page has shown the advance once it reads an offset in ms.
    await page.waitForFunction(() => / \(\d+ ms\)$/.test(document.querySelector('section.clock .offset')?.textContent ?? ''));
    expect(sandbox.store.clock(merchant.publicKey)?.offsetMs).toBeGreaterThan(3 * 3600_000 - 60_000);

    await open(`scenarios?q=declined&publicKey=${merchant.publicKey}`, 'scenarios');
    const names = await page.locator('#catalogue tbody tr').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.scenario));
    expect(names).toContain('card-declined');
    expect(names.length).toBeLessThan(await page.locator('#catalogue caption').textContent().then((text) => Number(text!.split(' of ')[1]!.split(' ')[0])));
    await page.getByRole('button', { name: 'Force card-declined', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('#overrides tbody')?.textContent?.includes('card-declined'));
    const declined = await api.as(merchant, 'POST', '/payments/initiates', cardPayment());
    expect(declined.headers['x-sandbox-scenario']).toBe('card-declined');
  });

  it('ran without a script error', () => {
    expect(errors).toEqual([]);
  });
});
