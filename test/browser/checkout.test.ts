// @module-tag browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ApiClient, cardPayment, checkoutLink, order, sandboxWithMerchant, type TestMerchant } from '../support/sandbox.js';
import { launchBrowser, merchantSite, screenshot, type MerchantSite } from './support.js';

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
let site: MerchantSite;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant({ listen: true }));
  site = await merchantSite();
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await sandbox?.close();
});
beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  // Anything the page asks of another host is a defect: the pages work offline.
  await page.route((url) => !['127.0.0.1'].includes(url.hostname), (route) => route.abort());
});
afterEach(async () => {
  await page.close();
});

const stored = (reference: unknown) => sandbox.store.payment(merchant.publicKey, String(reference))!;

async function newCheckout(fields: Record<string, unknown> = {}) {
  const body = checkoutLink({ callbackUrl: `${site.url}/payments/callback?order=42`, ...fields });
  const response = await api.as(merchant, 'POST', '/payments', body);
  expect(response.status).toBe(200);
  return { reference: String(body.paymentReference), link: String(response.body.data.payments.redirectLink) };
}

async function outcomeAtMerchant() {
  await page.waitForURL(`${site.url}/**`);
  const url = new URL(page.url());
  return Object.fromEntries(url.searchParams);
}

async function payByCard(cardNumber: string) {
  await page.getByLabel('Card number').fill(cardNumber);
  await page.getByLabel('Expiry (MM/YY)').fill('09/30');
  await page.getByLabel('CVV').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
}

describe('hosted checkout page', () => {
  it('shows the merchant, amount, currency, reference and description, and is paid by card after authentication', async () => {
    const { reference, link } = await newCheckout({ amount: '2500.00', productDescription: 'Annual plan' });
    await page.goto(link);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('NGN 2500.00');
    const facts = await page.locator('.facts').first().textContent();
    expect(facts).toContain(merchant.publicKey);
    expect(facts).toContain(reference);
    expect(facts).toContain('Annual plan');
    await screenshot(page, 'checkout-desktop');
    await payByCard('5123450000000008');
    await page.waitForURL('**/pages/authenticate/**');
    await page.getByLabel('One-time password').fill('123456');
    await page.getByRole('button', { name: 'Approve' }).click();
    const outcome = await outcomeAtMerchant();
    expect(outcome).toMatchObject({ order: '42', paymentReference: reference, code: '00', message: 'Successful', status: 'SUCCESSFUL' });
    await screenshot(page, 'checkout-card-paid-merchant');
    expect(stored(reference)).toMatchObject({ status: 'SUCCESSFUL', channel: 'CARD', card: { bin: '512345', last4: '0008' } });
  });

  it('is declined with card 4000000000000002 and the merchant hears S12', async () => {
    const { reference, link } = await newCheckout();
    await page.goto(link);
    await payByCard('4000000000000002');
    expect(await outcomeAtMerchant()).toMatchObject({ paymentReference: reference, code: 'S12', status: 'FAILED' });
    expect(stored(reference).status).toBe('FAILED');
    // The link now shows the final state instead of taking another payment.
    await page.goto(link);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('failed');
    await screenshot(page, 'checkout-declined-revisited');
  });

  it('is paid by bank transfer: shows the account, and the transfer is marked received', async () => {
    const { reference, link } = await newCheckout();
    await page.goto(link);
    await page.getByRole('button', { name: 'Show the account to pay into' }).click();
    const account = await page.locator('.account-number').textContent();
    expect(account).toMatch(/^[0-9]{10}$/);
    expect(stored(reference).transfer?.accountNumber).toBe(account);
    await screenshot(page, 'checkout-transfer');
    await page.getByRole('button', { name: 'I have sent the transfer' }).click();
    expect(await outcomeAtMerchant()).toMatchObject({ paymentReference: reference, code: '00', status: 'SUCCESSFUL' });
    expect(stored(reference).status).toBe('SUCCESSFUL');
  });

  it('is paid from a bank account with OTP 123456', async () => {
    const { reference, link } = await newCheckout();
    await page.goto(link);
    await page.getByLabel('Account number').fill('0123456789');
    await page.getByLabel('Bank code').fill('058');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('One-time password').fill('123456');
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    expect(await outcomeAtMerchant()).toMatchObject({ paymentReference: reference, code: '00', status: 'SUCCESSFUL' });
  });

  it('is cancelled by the customer', async () => {
    const { reference, link } = await newCheckout();
    await page.goto(link);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    expect(await outcomeAtMerchant()).toMatchObject({ paymentReference: reference, status: 'CANCELLED' });
    expect(stored(reference).status).toBe('CANCELLED');
  });

  it('shows an order\'s line items, escapes what came from the request, and fits a phone screen', async () => {
    const body = order({
      callbackUrl: `${site.url}/orders/callback`,
      productDescription: '<script>window.injected = true</script> Shoes',
      orders: [{ orderId: 'ORD-1', currency: 'NGN', amount: '4500.00', productId: '101', productDescription: '<img src=x onerror="window.injected=true"> Boots' }],
    });
    const created = await api.as(merchant, 'POST', '/payments/order', body);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(created.body.data.payments.redirectLink);
    expect(await page.locator('.description').textContent()).toBe('<script>window.injected = true</script> Shoes');
    expect(await page.locator('.items tbody').textContent()).toContain('<img src=x onerror="window.injected=true"> Boots');
    expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'checkout-phone');
  });

  it('can be paid by keyboard alone', async () => {
    const { reference, link } = await newCheckout();
    await page.goto(link);
    // Tab to the card number field, then type and tab through the form.
    for (let step = 0; step < 10 && !(await page.evaluate(() => document.activeElement?.id === 'cardNumber')); step += 1) await page.keyboard.press('Tab');
    await page.keyboard.type('4000000000000002');
    await page.keyboard.press('Tab');
    await page.keyboard.type('09/30');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    expect(await outcomeAtMerchant()).toMatchObject({ paymentReference: reference, code: 'S12' });
  });
});

describe('a return URL kept as sent (not an absolute http(s) URL)', () => {
  it('ends on the result page with a notice, and the browser stays on the sandbox', async () => {
    const { reference, link } = await newCheckout({ callbackUrl: 'www.testapp.com' });
    await page.goto(link);
    await payByCard('4000000000000002');
    await page.getByRole('heading', { name: 'Payment failed' }).waitFor();
    expect(new URL(page.url()).origin).toBe(sandbox.url);
    expect(await page.getByRole('note').textContent()).toContain('www.testapp.com');
    expect(await page.locator('a[href*="testapp"]').count()).toBe(0);
    expect(stored(reference).status).toBe('FAILED');
    await page.goto(link);
    expect(await page.getByRole('note').textContent()).toContain('is not an absolute http(s) URL');
    await screenshot(page, 'result-unusable-return-url');
  });
});

describe('card authentication page', () => {
  async function cardInitiate() {
    const body = cardPayment({ redirectUrl: `${site.url}/card/return` });
    const response = await api.as(merchant, 'POST', '/payments/initiates', body);
    return { reference: String(body.paymentReference), url: String(response.body.data.payments.redirectUrl) };
  }

  it('approved with OTP 123456: back at the merchant\'s redirectUrl with 00, the payment settled', async () => {
    const { reference, url } = await cardInitiate();
    await page.goto(url);
    expect(await page.locator('.facts').textContent()).toContain('512345******0008');
    await screenshot(page, 'authenticate');
    await page.getByLabel('One-time password').fill('123456');
    await page.getByRole('button', { name: 'Approve' }).click();
    expect(await outcomeAtMerchant()).toMatchObject({ paymentReference: reference, code: '00', status: 'SUCCESSFUL' });
    expect(stored(reference).status).toBe('SUCCESSFUL');
    expect(new URL(page.url()).pathname).toBe('/card/return');
  });

  it('declined: back at the merchant with S12, the payment failed', async () => {
    const { reference, url } = await cardInitiate();
    await page.goto(url);
    await page.getByRole('button', { name: 'Decline' }).click();
    expect(await outcomeAtMerchant()).toMatchObject({ paymentReference: reference, code: 'S12', status: 'FAILED' });
    expect(stored(reference).status).toBe('FAILED');
  });
});

describe('at the API', () => {
  it('refuses a javascript: callbackUrl or redirectUrl with 400, so no page ever renders it', async () => {
    const link = await api.as(merchant, 'POST', '/payments', checkoutLink({ callbackUrl: 'javascript:alert(1)' }));
    expect(link.status).toBe(400);
    expect(link.body).toMatchObject({ error: 'INPUT' });
    expect(link.body.message).toContain('callbackUrl');
    const card = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ redirectUrl: 'javascript:alert(1)' }));
    expect(card.status).toBe(400);
    expect(card.body.message).toContain('redirectUrl');
  });
});
