// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { accountPayment, ApiClient, cardPayment, listeningSandbox, type TestMerchant } from '../support/sandbox.js';
import { LIVE_MS, storyPage, type StoryPage } from './cockpit-session.js';
import { launchBrowser } from './support.js';

/**
 * The actions of a payment's story that follow its state: refund (part,
 * then the rest), cancel, capture (part), and a refusal said on the page
 * with nothing changed. Each is seen on the open page within a second,
 * without a reload.
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let browser: Browser;
let page: Page;
let story: StoryPage;

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  merchant = await api.merchant();
  browser = await launchBrowser();
  story = await storyPage(browser, sandbox.url);
  page = story.page;
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

const openStory = (reference: string) => story.openStory(merchant.publicKey, reference);
const shows = (status: string, ms?: number) => story.shows(status, ms);
const stored = (reference: string) => sandbox.store.payment(merchant.publicKey, reference)!;

async function paidAccount(reference: string) {
  const started = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: reference, amount: '150.00' }));
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
  expect(stored(reference).status).toBe('SUCCESSFUL');
}

describe('the actions of a payment\'s story', { timeout: 30_000 }, () => {
  it('refunds part of a payment, then the rest', async () => {
    await paidAccount('ACT-REFUND-1');
    await openStory('ACT-REFUND-1');
    const before = story.loads();
    await page.getByLabel('Refund amount (NGN)').fill('50.00');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.waitForFunction(() => document.getElementById('summary')?.textContent?.includes('RefundedNGN 50.00'), undefined, { timeout: LIVE_MS });
    expect(stored('ACT-REFUND-1').refundedAmount).toBe('50.00');
    expect(await page.locator('#notice').textContent()).toMatch(/^Refund of ACT-REFUND-1: /);
    // The rest: the field left empty.
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await shows('REFUNDED');
    expect(stored('ACT-REFUND-1').refundedAmount).toBe('150.00');
    // Nothing is left to refund: the form is gone; the refund notification can be sent.
    expect(await page.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send refund notification' }).count()).toBe(1);
    expect(await page.locator('#timeline li[data-kind="state"]').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.status))).toContain('REFUNDED');
    expect(story.loads()).toBe(before);
  });

  it('says why a refund past what is left is refused, and changes nothing', async () => {
    await paidAccount('ACT-REFUND-2');
    await openStory('ACT-REFUND-2');
    await page.getByLabel('Refund amount (NGN)').fill('999.00');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.waitForFunction(() => document.getElementById('notice')?.textContent?.startsWith('Could not do that: '));
    expect(stored('ACT-REFUND-2')).toMatchObject({ status: 'SUCCESSFUL', refundedAmount: '0.00' });
    expect(await page.locator('main#view').getAttribute('data-status')).toBe('SUCCESSFUL');
  });

  it('cancels a pending payment', async () => {
    await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: 'ACT-CANCEL-1' }));
    await openStory('ACT-CANCEL-1');
    const before = story.loads();
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await shows('CANCELLED');
    expect(stored('ACT-CANCEL-1').status).toBe('CANCELLED');
    expect(await page.getByRole('button', { name: 'Cancel', exact: true }).count()).toBe(0);
    expect(story.loads()).toBe(before);
  });

  it('captures part of a pre-authorisation', async () => {
    await api.as(merchant, 'POST', '/payments/authorise', cardPayment({ paymentReference: 'ACT-CAPTURE-1', amount: '100.00' }));
    expect(stored('ACT-CAPTURE-1').status).toBe('AUTHORIZED');
    await openStory('ACT-CAPTURE-1');
    await page.getByLabel('Capture amount (NGN)').fill('40.00');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await shows('PARTIALLY_CAPTURED');
    expect(stored('ACT-CAPTURE-1').capturedAmount).toBe('40.00');
    expect(await page.locator('#summary').textContent()).toContain('CapturedNGN 40.00');
  });

  it('ran without a script error', () => {
    expect(story.errors).toEqual([]);
  });
});
