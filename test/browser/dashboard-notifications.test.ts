// @module-tag browser
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { accountPayment, ApiClient, cardPayment, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, screenshot } from './support.js';

/**
 * The dashboard's Notifications and Clock views (and the merchant's view,
 * where its notification URL is set), driven as a QA person would: the
 * notification URL set through its form, a payment settled over
 * the Payments API and its delivery to a real receiver on loopback shown
 * with its attempt, a redeliver, a trigger, a clock advanced, a receiver
 * that does not acknowledge, values that look like HTML, and the
 * deliveries paged newest first.
 */

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
/** How long any one wait of this file may take. */
const WITHIN_MS = 10_000;

/** What a receiver got: one notification POST. */
interface Received {
  path: string;
  ackReference: string;
  eventId: string;
  eventType: string;
}

let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let acking: TestMerchant;
let bare: TestMerchant;
let hostile: TestMerchant;
let many: TestMerchant;
let browser: Browser;
let page: Page;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const dashboardCalls: URL[] = [];

/**
 * The merchants' receiver: `/ack` acknowledges as the provider's page asks,
 * `/bare` answers a bare 200, `/html` a 200 whose body is HTML.
 */
function startReceiver(): Promise<void> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://receiver.local').pathname;
      const ackReference = String(req.headers['x-expected-ack-reference'] ?? '');
      const item = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}').notificationItems?.[0]?.notificationRequestItem ?? {};
      received.push({ path, ackReference, eventId: item.eventId, eventType: item.eventType });
      if (path === '/ack') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ackReference, status: 'received' }));
      else if (path === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end(HOSTILE);
      else res.writeHead(200).end();
    });
  });
  return new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => {
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    resolve();
  }));
}

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
  acking = await api.merchant();
  bare = await api.merchant();
  hostile = await api.merchant();
  many = await api.merchant();
  await startReceiver();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(WITHIN_MS);
  // Offline: only the sandbox and the receiver, both on loopback.
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname !== '127.0.0.1') return route.abort();
    dashboardCalls.push(url);
    return route.continue();
  });
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Opens a view by its address and waits until it has drawn what it read, live events flowing. */
async function open(path: string, view: string) {
  await page.goto(`${sandbox.url}/__sandbox/dashboard/${path}`);
  await page.waitForSelector(`main#view[data-view="${view}"][data-ready="true"][data-live="true"]`);
}

/** The Notifications view, filtered by the merchant (every merchant's without one). */
const showDeliveries = (shown: TestMerchant | undefined) => open(`notifications${shown ? `?publicKey=${shown.publicKey}` : ''}`, 'notifications');
const showClock = (shown: TestMerchant) => open(`clock?publicKey=${shown.publicKey}`, 'clock');
const webhookFacts = () => page.locator('#webhook dl').textContent();

/** Sets the merchant's notification URL through the form of its view. */
async function setUrl(shown: TestMerchant, url: string) {
  await open(`merchants/${shown.publicKey}`, 'merchant');
  await page.locator('#webhook summary').click();
  await page.getByLabel('Notification URL').fill(url);
  await page.getByLabel('Schedule', { exact: true }).selectOption('current');
  await page.getByRole('button', { name: 'Set notification URL' }).click();
  await page.waitForFunction((expected) => document.querySelector('#webhook dl')?.textContent?.includes(`Sent to${expected}`), url);
}

/** An ACCOUNT payment of the merchant, completed with the OTP: it succeeds, and its transaction event is made. */
async function settledAccountPayment(merchant: TestMerchant, fields: Record<string, unknown>) {
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment(fields));
  expect(initiated.status, JSON.stringify(initiated.body)).toBe(200);
  const validated = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  expect(validated.status, JSON.stringify(validated.body)).toBe(200);
  expect(sandbox.store.payment(merchant.publicKey, String(fields.paymentReference))?.status).toBe('SUCCESSFUL');
}

const receivedAt = (path: string) => received.filter((r) => r.path === path);
const deliveryRows = (reference: string) => page.locator('#deliveries tr.delivery', { hasText: reference });

/** Waits until `read` gives what `accept` takes, the view following the live events alone; bounded by WITHIN_MS. */
async function refreshUntil<T>(read: () => Promise<T>, accept: (value: T) => boolean): Promise<T> {
  let last: T | undefined;
  await expect.poll(async () => {
    last = await read();
    return accept(last);
  }, { timeout: WITHIN_MS, interval: 100 }).toBe(true);
  return last as T;
}

/** Opens a delivery's attempts and event (the row under it) and returns that row. */
async function openDetails(row: Locator): Promise<Locator> {
  const toggle = row.locator('button[aria-controls]');
  expect(await toggle.getAttribute('aria-label')).toMatch(/^Open the attempts of delivery dlv_/);
  expect(await toggle.getAttribute('aria-expanded')).toBe('false');
  const details = page.locator(`#${await toggle.getAttribute('aria-controls')}`);
  await toggle.click();
  await details.waitFor({ state: 'visible' });
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  expect(await toggle.textContent()).toBe('Close');
  return details;
}

describe('the dashboard shows and drives notifications', { timeout: 30_000 }, () => {
  it('sets a merchant\'s notification URL from its form', async () => {
    await open(`merchants/${acking.publicKey}`, 'merchant');
    expect(await webhookFacts()).toContain('Sent tonowhere');
    expect(await webhookFacts()).toContain('Sourcenone');
    await setUrl(acking, `${receiverUrl}/ack`);
    expect(await webhookFacts()).toContain('Sourceits own URL');
    expect(await webhookFacts()).toContain('Schedulecurrent');
    expect(sandbox.store.webhook(acking.publicKey)).toMatchObject({ url: `${receiverUrl}/ack`, schedule: 'current' });
  });

  it('shows a settled payment\'s delivery as delivered, with its attempt', async () => {
    await showDeliveries(acking);
    await settledAccountPayment(acking, { paymentReference: 'NOTE-ACC-1' });
    await expect.poll(() => receivedAt('/ack').length, { timeout: WITHIN_MS }).toBe(1);
    const row = deliveryRows('NOTE-ACC-1');
    await refreshUntil(() => row.locator('td.state').allTextContents(), (states) => states.join() === 'delivered');
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('transaction');
    expect(cells[2]).toContain('NOTE-ACC-1');
    expect(cells[5]).toBe('1');
    expect(cells[6]).toBe('—');
    const details = await openDetails(row);
    const attempt = details.locator('table.attempts tbody tr');
    expect(await attempt.count()).toBe(1);
    const [, status, latency, result, to] = await attempt.locator('td').allTextContents();
    expect(status).toBe('200');
    expect(latency).toMatch(/^[0-9.]+ ms$/);
    expect(result).toBe('acknowledged');
    expect(to).toBe(`${receiverUrl}/ack`);
    expect(await details.textContent()).toContain(received[0]!.eventId);
    await screenshot(page, 'dashboard-notifications');
  });

  it('redelivers a delivery: the receiver gets the same eventId again', async () => {
    await deliveryRows('NOTE-ACC-1').getByRole('button', { name: 'Redeliver' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent?.startsWith('Redelivering the transaction event of NOTE-ACC-1'));
    await expect.poll(() => receivedAt('/ack').length, { timeout: WITHIN_MS }).toBe(2);
    const [first, again] = receivedAt('/ack');
    expect(again!.eventId).toBe(first!.eventId);
    expect(again!.ackReference).not.toBe(first!.ackReference);
    // Newest first: the copy above the delivery it repeats, both delivered.
    const rows = deliveryRows('NOTE-ACC-1');
    await refreshUntil(() => rows.locator('td.state').allTextContents(), (states) => states.join() === 'delivered,delivered');
    const copy = await openDetails(rows.first());
    const original = await rows.nth(1).getAttribute('data-delivery');
    expect(await copy.locator('dl').textContent()).toContain(`Repeats${original}`);
  });

  it('sends a payment\'s notification from its story', async () => {
    await open(`merchants/${acking.publicKey}/payments/NOTE-ACC-1`, 'payment');
    await page.getByRole('button', { name: 'Send transaction notification' }).click();
    await page.waitForFunction(() => document.querySelector('#notice')?.textContent?.startsWith('Sending the transaction event of NOTE-ACC-1: 1 delivery made'));
    await expect.poll(() => receivedAt('/ack').length, { timeout: WITHIN_MS }).toBe(3);
    const triggered = receivedAt('/ack')[2]!;
    expect(triggered.eventType).toBe('transaction');
    expect(triggered.eventId).not.toBe(received[0]!.eventId);
    await showDeliveries(acking);
    await refreshUntil(() => deliveryRows('NOTE-ACC-1').locator('td.state').allTextContents(), (states) => states.join() === 'delivered,delivered,delivered');
  });

  it('shows why a bare 200 does not acknowledge, and the retry falling due', async () => {
    await setUrl(bare, `${receiverUrl}/bare`);
    await showDeliveries(bare);
    await settledAccountPayment(bare, { paymentReference: 'NOTE-BARE-1' });
    await expect.poll(() => receivedAt('/bare').length, { timeout: WITHIN_MS }).toBe(1);
    const row = deliveryRows('NOTE-BARE-1');
    await refreshUntil(() => row.locator('td').nth(5).textContent(), (attempts) => attempts === '1');
    expect(await row.locator('td.state').textContent()).toBe('scheduled');
    expect(await row.locator('td').nth(6).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const details = await openDetails(row);
    const [, status, , reason] = await details.locator('table.attempts tbody tr td').allTextContents();
    expect(status).toBe('200');
    expect(reason).toContain('ackReference');
    expect(reason).toContain('HTTP 200 with an empty body');
    // The retry, 30 s on, is what falls due on the merchant's clock.
    const delivery = await row.getAttribute('data-delivery');
    await showClock(bare);
    const pending = page.locator('table.pending tbody tr', { hasText: 'NOTE-BARE-1' });
    const cells = await pending.locator('td').allTextContents();
    expect(cells.slice(1, 3)).toEqual([expect.stringMatching(/^in (2\d|30) s$/), 'delivery attempt']);
    expect(await pending.locator('td').nth(3).locator('.short').getAttribute('title')).toBe('NOTE-BARE-1');
    expect(await pending.locator('td').nth(4).locator('.short').getAttribute('title')).toBe(delivery);
  });

  it('advances the merchant\'s clock by PT1H: its offset shows it, and what fell due was carried out', async () => {
    const offset = () => page.locator('section.clock .offset').textContent();
    expect(await offset()).toBe('PT0S (real time)');
    await page.getByLabel('Advance by (ISO 8601 duration)').fill('PT1H');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('section.clock .offset')?.textContent?.startsWith('PT1H'));
    expect(await offset()).toBe('PT1H (3600000 ms)');
    expect(sandbox.store.clock(bare.publicKey)?.offsetMs).toBe(3_600_000);
    // Retries after 30 s, 2 min, 10 min and 30 min fell within the hour; the next is 1 h after the last.
    expect(await page.locator('#notice').textContent()).toContain('Carried out: delivery attempt of NOTE-BARE-1, delivery attempt of NOTE-BARE-1');
    expect(receivedAt('/bare').length).toBe(5);
    await refreshUntil(() => page.locator('table.pending tbody tr', { hasText: 'NOTE-BARE-1' }).locator('td').nth(1).textContent(), (text) => /^in 42 min \d+ s$/.test(text ?? ''));
    await showDeliveries(bare);
    await refreshUntil(() => deliveryRows('NOTE-BARE-1').locator('td').nth(5).textContent(), (attempts) => attempts === '5');
    // Another merchant's clock did not move.
    await showClock(acking);
    expect(await offset()).toBe('PT0S (real time)');
    expect(await page.locator('table.pending tbody').textContent()).toBe('Nothing falls due.');
  });

  it('shows values from a client, a payment and a receiver as text, never as HTML', async () => {
    const url = `${receiverUrl}/html?tag=${HOSTILE}`;
    await setUrl(hostile, url);
    await showDeliveries(hostile);
    await settledAccountPayment(hostile, { paymentReference: 'NOTE-HOSTILE-1', fullName: HOSTILE });
    await expect.poll(() => receivedAt('/html').length, { timeout: WITHIN_MS }).toBe(1);
    const row = deliveryRows('NOTE-HOSTILE-1');
    await refreshUntil(() => row.locator('td').nth(5).textContent(), (attempts) => attempts === '1');
    const details = await openDetails(row);
    const [, , , reason, to] = await details.locator('table.attempts tbody tr td').allTextContents();
    expect(reason).toContain(`the receiver answered ${JSON.stringify(HOSTILE)}`);
    expect(to).toBe(url);
    await details.getByText('Event as sent').click();
    expect(await details.locator('pre').textContent()).toContain(`"fullname": ${JSON.stringify(HOSTILE)}`);
    expect(await page.locator('main img').count()).toBe(0);
    // And the payment's story, where the receiver's answer and the event are shown too.
    await open(`merchants/${hostile.publicKey}/payments/NOTE-HOSTILE-1`, 'payment');
    expect(await page.locator('#timeline').textContent()).toContain(JSON.stringify(HOSTILE));
    expect(await page.locator('main img').count()).toBe(0);
    await open(`merchants/${hostile.publicKey}`, 'merchant');
    expect(await webhookFacts()).toContain(`Sent to${url}`);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('pages a merchant\'s deliveries newest first', async () => {
    expect((await control.send('PUT', `/webhooks/${many.publicKey}`, { body: { url: `${receiverUrl}/ack` } })).status).toBe(200);
    // Withheld: made and listed, never sent.
    expect((await control.send('POST', `/webhooks/${many.publicKey}/faults`, { body: { kind: 'never' } })).status).toBe(201);
    await api.as(many, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'NOTE-MANY-1' }));
    for (let n = 0; n < 60; n += 1) {
      expect((await control.send('POST', `/webhooks/${many.publicKey}/trigger`, { body: { eventType: 'transaction', paymentReference: 'NOTE-MANY-1' } })).status).toBe(201);
    }
    const listed = await control.send('GET', '/webhooks/deliveries', { query: { publicKey: many.publicKey, limit: 100 } });
    // The control API lists them newest first, as the dashboard shows them.
    const ids: string[] = listed.body.deliveries.map((d: { id: string }) => d.id);
    expect(ids).toHaveLength(60);
    const pager = page.getByRole('navigation', { name: 'Deliveries pages' });
    const shownIds = () => page.locator('#deliveries tr.delivery').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-delivery')));
    const onPage = (number: number) => page.waitForSelector(`nav[data-list="deliveries"][data-page="${number}"]`);

    const callsBefore = dashboardCalls.length;
    await showDeliveries(many);
    await onPage(1);
    expect(await shownIds()).toEqual(ids.slice(0, 25));
    expect(await pager.textContent()).toContain('1–25 of 60');
    expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    expect(await page.locator('#deliveries td.state').first().textContent()).toBe('withheld');

    await pager.getByRole('button', { name: 'Next' }).click();
    await onPage(2);
    expect(await shownIds()).toEqual(ids.slice(25, 50));
    expect(await pager.textContent()).toContain('26–50 of 60');
    await pager.getByRole('button', { name: 'Next' }).click();
    await onPage(3);
    expect(await shownIds()).toEqual(ids.slice(50));
    expect(await pager.textContent()).toContain('51–60 of 60');
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await onPage(2);
    expect(await shownIds()).toEqual(ids.slice(25, 50));
    await screenshot(page, 'dashboard-deliveries-paging');

    // Each list request is one page, as the dashboard shows it.
    const lists = dashboardCalls.slice(callsBefore).filter((url) => url.pathname === '/__sandbox/webhooks/deliveries');
    expect(lists.length).toBeGreaterThan(0);
    for (const url of lists) expect(Number(url.searchParams.get('limit')), url.href).toBe(25);
  });

  it('shows every merchant\'s deliveries, and no fault form, when no merchant is chosen', async () => {
    await showDeliveries(undefined);
    expect(await page.locator('#fault-form').count()).toBe(0);
    const shown = await page.locator('#deliveries > tbody').textContent();
    expect(shown).toContain('NOTE-MANY-1');
    expect(await page.getByRole('navigation', { name: 'Deliveries pages' }).textContent()).toContain('1–25 of 65');
  });

  it('is used through the control API and its own files alone', () => {
    const outside = dashboardCalls.filter((url) => !url.pathname.startsWith('/__sandbox') && !url.pathname.startsWith('/pages/assets/dashboard/') && url.pathname !== '/pages/assets/bar.css' && url.pathname !== '/pages/assets/favicon.svg');
    expect(outside).toEqual([]);
  });
});
