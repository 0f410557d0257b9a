// @module-tag browser
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/go-live/check.js';
import type { Sandbox } from '../../src/index.js';
import { GO_LIVE_CHECK_IDS, type GoLiveReport, type GoLiveRun } from '../../src/model/go-live.js';
import { ControlClient, eventually } from '../support/control.js';
import { accountPayment, ApiClient, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { seriousViolations } from './axe.js';
import { launchBrowser } from './support.js';

/**
 * The dashboard's go-live report (`/__sandbox/dashboard/merchants/{publicKey}/go-live`), as a QA person
 * meets it: reached from the merchant's view, its verdict and eight checks, a piece of evidence followed to
 * the payment's story, a run refused for want of a notification URL, a run's steps followed until it is
 * done, and no serious or critical axe violation.
 */

const WITHIN_MS = 10_000;
/** The payment whose notification the receiver does not acknowledge: the evidence of a failed check. */
const REFERENCE = 'LIVE-ACC-1';

let sandbox: Sandbox;
let control: ControlClient;
let merchant: TestMerchant;
let receiver: Server;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** A receiver that answers a bare HTTP 200: no ackReference, so every attempt fails `notification-acknowledged`. */
function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  return new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bare`)));
}

const report = async (): Promise<GoLiveReport> => (await control.send('GET', `/go-live/${merchant.publicKey}`)).body;

beforeAll(async () => {
  sandbox = await listeningSandbox();
  const api = await ApiClient.for(sandbox);
  control = await ControlClient.for(sandbox);
  merchant = await api.merchant();
  const url = await startReceiver();
  expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url } })).status).toBe(200);
  // Some traffic: an ACCOUNT payment that succeeds, whose notification the receiver answers without the ackReference.
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: REFERENCE }));
  expect(initiated.status, JSON.stringify(initiated.body)).toBe(200);
  const validated = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' });
  expect(validated.status, JSON.stringify(validated.body)).toBe(200);
  await eventually('the unacknowledged attempt failing notification-acknowledged', async () => ((await report()).checks.find((c) => c.id === 'notification-acknowledged')?.status === 'fail' ? true : undefined), 200, 50);
  browser = await launchBrowser();
  // The pages' CSP is self-only: axe is injected as a script of the page, so this context bypasses it.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  page.setDefaultTimeout(WITHIN_MS);
  await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const goLivePath = () => `/__sandbox/dashboard/merchants/${merchant.publicKey}/go-live`;
const ready = () => page.waitForSelector('main#view[data-view="go-live"][data-ready="true"]');
const check = (id: string) => page.locator(`li[data-check="${id}"]`);

describe("the dashboard's go-live report", { timeout: 30_000 }, () => {
  it('is reached from the merchant\'s view and shows the verdict and every check', async () => {
    await page.goto(`${sandbox.url}/__sandbox/dashboard/merchants/${merchant.publicKey}`);
    await page.waitForSelector('main#view[data-view="merchant"][data-ready="true"]');
    await page.getByRole('link', { name: 'Go-live report' }).first().click();
    await ready();
    expect(new URL(page.url()).pathname).toBe(goLivePath());
    expect(await page.title()).toBe(`Go-live report of ${merchant.publicKey} · Sandbox dashboard`);
    expect(await page.locator('#views a[aria-current="page"]').textContent()).toBe('Go-live report');
    expect(await page.locator('#views a[data-nav="merchant"]').getAttribute('href')).toBe(`/__sandbox/dashboard/merchants/${merchant.publicKey}`);

    const judged = await report();
    expect(judged.verdict).toBe('not-ready');
    expect(await page.locator('main#view').getAttribute('data-verdict')).toBe('not-ready');
    expect(await page.locator('#verdict .verdict').textContent()).toBe('Not ready');
    const verdictText = await page.locator('#verdict').textContent();
    expect(verdictText).toContain(`${judged.since.slice(0, 10)} ${judged.since.slice(11, 19)} UTC`);
    expect(verdictText).toMatch(/Judged at\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);

    expect(await page.locator('li[data-check]').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.check))).toEqual([...GO_LIVE_CHECK_IDS]);
    for (const shown of judged.checks) {
      const item = check(shown.id);
      expect(await item.locator('h3').textContent()).toBe(CHECKS[shown.id].title);
      expect(await item.getAttribute('data-status')).toBe(shown.status);
      // The status in words, not by colour alone.
      expect(await item.locator('.check-status').textContent()).toBe({ pass: 'pass', fail: 'fail', warn: 'warning', 'not-exercised': 'not exercised' }[shown.status]);
      expect(await item.locator('.check-summary').textContent()).toBe(shown.summary);
    }
  });

  it("follows a piece of evidence to the payment's story", async () => {
    const evidence = (await report()).checks.find((c) => c.id === 'notification-acknowledged')!.evidence[0]!;
    expect(evidence).toMatchObject({ paymentReference: REFERENCE, deliveryId: expect.stringMatching(/^dlv_/), eventId: expect.any(String) });
    const row = check('notification-acknowledged').locator(`tr[data-delivery="${evidence.deliveryId}"]`).first();
    expect(await row.textContent()).toContain(evidence.detail);
    // Its columns: Found, Payment, Delivery, eventId (no request is named by this check's evidence).
    expect(await check('notification-acknowledged').locator('thead th').allTextContents()).toEqual(['Found', 'Payment', 'Delivery', 'eventId']);
    expect(await row.locator('td').nth(3).locator('[title]').first().getAttribute('title')).toBe(evidence.eventId);
    const delivery = new URL(await row.locator('td').nth(2).locator('a').getAttribute('href') ?? '', sandbox.url);
    expect([delivery.pathname, delivery.searchParams.get('publicKey'), delivery.searchParams.get('paymentReference')]).toEqual(['/__sandbox/dashboard/notifications', merchant.publicKey, REFERENCE]);
    await row.locator('td').nth(1).getByRole('link').click();
    await page.waitForSelector('main#view[data-view="payment"][data-ready="true"]');
    expect(new URL(page.url()).pathname).toBe(`/__sandbox/dashboard/merchants/${merchant.publicKey}/payments/${REFERENCE}`);
    expect(await page.locator('main h1').textContent()).toContain(REFERENCE);
  });

  it('says why a run did not start when the merchant has no notification URL, and passes axe', async () => {
    expect((await control.send('DELETE', `/webhooks/${merchant.publicKey}`)).status).toBe(204);
    const refused = await control.send('POST', `/go-live/${merchant.publicKey}/runs`);
    expect(refused.status).toBe(409);
    await page.goto(`${sandbox.url}${goLivePath()}`);
    await ready();
    expect(await page.locator('#run').textContent()).toContain('Sends tonowhere: no notification URL');
    // By keyboard: the button is reached and pressed without a pointer.
    await page.locator('#start-run').focus();
    await page.keyboard.press('Enter');
    await page.locator('#run-error').waitFor({ state: 'visible' });
    expect(await page.locator('#run-error').textContent()).toBe(`The run did not start: ${(refused.body as { message: string }).message}`);
    expect(await page.locator('#start-run').isEnabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("shows a run's steps as they are answered, then reads the report again", async () => {
    // The run answered in its documented shape (control-api.yaml GoLiveRun), so the view's following of it is what is checked.
    const id = 'run_0123456789ab';
    const step = (name: GoLiveRun['steps'][number]['step'], result: 'waiting' | 'pass' | 'fail') => ({
      step: name, eventType: name === 'dispute' ? 'dispute' : 'transaction', eventId: `evt_${name}`, paymentReference: `GOLIVE-${id}-PAID`, result,
      ...(result === 'waiting' ? {} : { answer: { status: 200, ms: 4.2 }, detail: result === 'pass' ? 'acknowledged' : 'HTTP 200 without an ackReference' }),
    });
    const runs: GoLiveRun[] = [
      { id, status: 'running', startedAt: '2026-12-08T10:00:00.000Z', steps: [step('success', 'pass'), step('duplicate', 'waiting')] },
      { id, status: 'done', startedAt: '2026-12-08T10:00:00.000Z', finishedAt: '2026-12-08T10:00:03.000Z', steps: [step('success', 'pass'), step('duplicate', 'pass'), step('dispute', 'fail'), step('false-success', 'pass')] },
    ];
    let reads = 0;
    let reports = 0;
    // How many times the report had been read when the run was first seen done: it must be read again after.
    let reportsAtDone = Infinity;
    const runsPath = `/__sandbox/go-live/${merchant.publicKey}/runs`;
    await page.route(`**${runsPath}`, (route: Route) => route.fulfill({ status: 202, contentType: 'application/json', body: JSON.stringify({ id, status: 'running' }) }));
    await page.route(`**${runsPath}/${id}`, (route: Route) => {
      const run = runs[Math.min(reads++, 1)]!;
      if (run.status === 'done') reportsAtDone = Math.min(reportsAtDone, reports);
      return route.fulfill({ contentType: 'application/json', body: JSON.stringify(run) });
    });
    page.on('request', (request) => { if (new URL(request.url()).pathname === `/__sandbox/go-live/${merchant.publicKey}`) reports += 1; });
    try {
      await page.goto(`${sandbox.url}${goLivePath()}`);
      await ready();
      await page.locator('#start-run').click();
      await page.waitForSelector('#run[data-run="running"]');
      expect(await page.locator('#run-status').textContent()).toBe(`Run ${id} running: 1 of 2 steps answered…`);
      await page.waitForSelector('#run[data-run="done"]');
      expect(reads).toBe(2);
      expect(await page.locator('#run-status').textContent()).toBe(`Run ${id} done: 3 of 4 steps passed.`);
      expect(await page.locator('#run-step-list tbody tr').evaluateAll((rows) => rows.map((row) => `${(row as HTMLElement).dataset.step}:${(row as HTMLElement).dataset.result}`)))
        .toEqual(['success:pass', 'duplicate:pass', 'dispute:fail', 'false-success:pass']);
      await expect.poll(() => reports, { timeout: WITHIN_MS }).toBeGreaterThan(reportsAtDone);
      await ready();
      expect(await page.locator('#start-run').isEnabled()).toBe(true);
    } finally {
      await page.unroute(`**${runsPath}`);
      await page.unroute(`**${runsPath}/${id}`);
    }
  });

  it('runs a real test of the receiver from its button, step by step, until the merchant\'s clock passes the wait', async () => {
    expect((await control.send('PUT', `/webhooks/${merchant.publicKey}`, { body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bare` } })).status).toBe(200);
    await page.goto(`${sandbox.url}${goLivePath()}`);
    await ready();
    await page.locator('#start-run').click();
    await page.waitForSelector('#run[data-run="running"]');
    // The bare receiver answers every step without the ackReference, and never queries: the run waits on the merchant's clock.
    await page.waitForSelector('#run-step-list tbody tr[data-step="false-success"]');
    expect((await control.send('POST', `/clock/${merchant.publicKey}/advance`, { body: { by: 'PT31S' } })).status).toBe(200);
    await page.waitForSelector('#run[data-run="done"]');
    expect(await page.locator('#run-step-list tbody tr').evaluateAll((rows) => rows.map((row) => `${(row as HTMLElement).dataset.step}:${(row as HTMLElement).dataset.result}`)))
      .toEqual(['success:fail', 'duplicate:fail', 'dispute:fail', 'false-success:fail']);
    await ready();
    expect(await check('notification-unknown-type-acknowledged').getAttribute('data-status')).toBe('fail');
  });
});
