// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { Receiver } from '../support/receiver.js';
import { accountPayment, ApiClient, cardPayment, listeningSandbox, transferPayment, type TestMerchant } from '../support/sandbox.js';
import { LIVE_MS, storyPage, type StoryPage } from './cockpit-session.js';
import { launchBrowser, screenshot } from './support.js';

/**
 * A payment's story as a tester reads it (/__sandbox/dashboard/merchants/{publicKey}/payments/{paymentReference}):
 * each request path of the payment, each state it passed through, each
 * delivery attempt with its status; the actions its state allows; and the
 * page following a change made elsewhere within a second, without a reload,
 * unless live updates are paused.
 */

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let receiver: Receiver;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;
let story: StoryPage;

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
  receiver = await Receiver.start();
  merchant = await api.merchant();
  expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: receiver.url } })).status).toBe(200);
  browser = await launchBrowser();
  story = await storyPage(browser, sandbox.url);
  page = story.page;
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  await receiver?.close();
});

const openStory = (reference: string) => story.openStory(merchant.publicKey, reference);

const shows = (status: string, ms?: number) => story.shows(status, ms);

describe('a payment\'s story', { timeout: 30_000 }, () => {
  it('lists each request path, each state and each delivery attempt with its status', async () => {
    // The first attempt meets a receiver answering 500: the retry, a minute later on the clock, is acknowledged.
    expect((await control.send('POST', `/webhooks/${merchant.publicKey}/faults`, { body: { kind: 'receiver-error', status: 500, attempts: 1, times: 1 } })).status).toBe(201);
    const started = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: 'STORY-ACC-1' }));
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
    await expect.poll(() => sandbox.store.deliveries(merchant.publicKey).find((d) => d.paymentReference === 'STORY-ACC-1')?.attempts.length, { timeout: 5000 }).toBe(1);
    await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT1M' } });
    await expect.poll(() => receiver.of('STORY-ACC-1').length, { timeout: 5000 }).toBe(1);

    await openStory('STORY-ACC-1');
    const paths = await page.locator('#timeline li[data-kind="request"]').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.path));
    expect(paths).toEqual(['/payments/initiates', '/payments/validate']);
    const states = await page.locator('#timeline li[data-kind="state"]').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.status));
    expect(states).toEqual(['PENDING', 'SUCCESSFUL']);
    const delivery = page.locator('#timeline li[data-kind="delivery"]');
    expect(await delivery.getAttribute('data-state')).toBe('delivered');
    const attempts = await delivery.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.children[1]!.textContent));
    expect(attempts).toEqual(['500', '200']);
    expect(await delivery.locator('tbody tr').first().textContent()).toContain('retried:');
    // Each request's bodies, pretty-printed and masked as the journal keeps them, open on demand.
    const first = page.locator('#timeline li[data-kind="request"]').first();
    await first.getByText('Request and response').click();
    expect(await first.locator('pre.json').first().textContent()).toContain('"paymentReference": "STORY-ACC-1"');
    expect(await first.getByRole('button', { name: /^Copy as curl: request \d+$/ }).count()).toBe(1);
    await screenshot(page, 'cockpit-story-delivered');
  });

  it('completes a pending payment from its page: the page shows it within a second, without a reload', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'STORY-CARD-1' }));
    await openStory('STORY-CARD-1');
    await shows('PENDING');
    const before = story.loads();
    await page.getByRole('button', { name: 'Complete (success)' }).click();
    await shows('SUCCESSFUL');
    expect(sandbox.store.payment(merchant.publicKey, 'STORY-CARD-1')?.status).toBe('SUCCESSFUL');
    expect(await page.locator('#timeline li[data-kind="state"]').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.status))).toEqual(['PENDING', 'SUCCESSFUL']);
    // Actions follow the state: a succeeded payment is no longer completed or failed.
    expect(await page.getByRole('button', { name: 'Fail' }).count()).toBe(0);
    expect(story.loads()).toBe(before);
  });

  it('fails a pending payment from its page, shown within a second without a reload', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'STORY-CARD-FAIL' }));
    await openStory('STORY-CARD-FAIL');
    await shows('PENDING');
    const before = story.loads();
    await page.getByRole('button', { name: 'Fail', exact: true }).click();
    await shows('FAILED');
    expect(sandbox.store.payment(merchant.publicKey, 'STORY-CARD-FAIL')?.status).toBe('FAILED');
    expect(await page.getByRole('button', { name: 'Complete (success)' }).count()).toBe(0);
    expect(story.loads()).toBe(before);
  });

  it('follows a change made elsewhere within a second, without a reload', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'STORY-CARD-2' }));
    await openStory('STORY-CARD-2');
    const before = story.loads();
    await control.send('POST', '/payments/complete', { body: { paymentReference: 'STORY-CARD-2', publicKey: merchant.publicKey, outcome: 'failure' } });
    await shows('FAILED');
    expect(story.loads()).toBe(before);
  });

  it('holds events while paused, says how many wait, and applies them on resuming', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'STORY-CARD-3' }));
    await openStory('STORY-CARD-3');
    const pause = page.locator('#pause');
    await pause.click();
    expect(await pause.getAttribute('aria-pressed')).toBe('true');
    await control.send('POST', '/payments/complete', { body: { paymentReference: 'STORY-CARD-3', publicKey: merchant.publicKey, outcome: 'success' } });
    await page.waitForFunction(() => Number(document.getElementById('pause')?.dataset.waiting) > 0);
    expect(await pause.textContent()).toMatch(/^Resume live updates \(\d+ waiting\)$/);
    await page.waitForTimeout(LIVE_MS);
    expect(await page.locator('main#view').getAttribute('data-status')).toBe('PENDING');
    await pause.click();
    expect(await pause.getAttribute('aria-pressed')).toBe('false');
    await shows('SUCCESSFUL');
  });

  it('sends a notification and redelivers it from the story', async () => {
    await openStory('STORY-CARD-1');
    const delivered = receiver.of('STORY-CARD-1').length;
    await page.getByRole('button', { name: 'Send transaction notification' }).click();
    await page.waitForFunction(() => document.getElementById('notice')?.textContent?.startsWith('Sending the transaction event of STORY-CARD-1'));
    await expect.poll(() => receiver.of('STORY-CARD-1').length, { timeout: 5000 }).toBe(delivered + 1);
    const deliveries = page.locator('#timeline li[data-kind="delivery"]');
    await expect.poll(() => deliveries.count(), { timeout: LIVE_MS * 2 }).toBe(delivered + 1);
    await deliveries.last().getByRole('button', { name: /^Redeliver / }).click();
    await expect.poll(() => receiver.of('STORY-CARD-1').length, { timeout: 5000 }).toBe(delivered + 2);
    await expect.poll(() => deliveries.count(), { timeout: LIVE_MS * 2 }).toBe(delivered + 2);
  });

  it('settles a transfer by moving its merchant\'s clock to the settlement', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', transferPayment({ paymentReference: 'STORY-TRF-1', amount: '4000.00' }));
    await openStory('STORY-TRF-1');
    expect(await page.locator('#due').textContent()).toContain('settlement');
    await page.getByRole('button', { name: /^Settle now/ }).click();
    await shows('SUCCESSFUL', 3000);
    expect(sandbox.store.payment(merchant.publicKey, 'STORY-TRF-1')?.status).toBe('SUCCESSFUL');
  });

  it('says so for a payment the merchant does not have', async () => {
    await page.goto(`${sandbox.url}/__sandbox/dashboard/merchants/${merchant.publicKey}/payments/NO-SUCH-REF`);
    await page.waitForSelector('main#view[data-view="payment"][data-ready="true"]');
    expect(await page.locator('#summary h2').textContent()).toBe('No such payment');
  });

  it('ran without a script error', () => {
    expect(story.errors).toEqual([]);
  });
});
