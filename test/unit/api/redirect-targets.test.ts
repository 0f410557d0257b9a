import { inProcess } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { isRedirectTarget } from '../../../src/model/redirect-targets.js';
import { ApiClient, cardPayment, checkoutLink, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * One rule decides whether the customer is ever sent to a merchant's URL:
 * `X-Sandbox-Warnings` says "never redirected to" exactly when the pages do
 * not redirect there (README, "Accepted beyond the spec" and "Pages").
 */

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
});
afterAll(() => sandbox.close());

const NEVER = 'not an absolute http(s) URL, kept as sent and never redirected to';
const warningsOf = (response: { headers: Record<string, string> }) => response.headers['x-sandbox-warnings'] ?? '';

/** Characters a browser would percent-encode (or, for `\`, read as `/`): RFC 3986 has no place for them. */
const OUTSIDE_RFC_3986 = [' ', '|', '^', '<', '>', '{', '}', '\\', '"', '`'];

// A card payment with this redirectUrl, approved on the authentication page: where the page sends the customer, if anywhere.
async function approvedCard(redirectUrl: string): Promise<{ warnings: string; status: number; location?: string }> {
  const initiated = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ redirectUrl }));
  expect(initiated.status, redirectUrl).toBe(200);
  const linkingReference = initiated.body.data.payments.linkingReference as string;
  const page = await inProcess(sandbox).post(`/pages/authenticate/${encodeURIComponent(linkingReference)}`).type('form').send({ otp: '123456' });
  return { warnings: warningsOf(initiated), status: page.status, location: page.headers.location };
}

// A hosted checkout with this callbackUrl, cancelled by the customer on its page.
async function cancelledCheckout(callbackUrl: string): Promise<{ warnings: string; status: number; location?: string }> {
  const created = await api.as(merchant, 'POST', '/payments', checkoutLink({ callbackUrl }));
  expect(created.status, callbackUrl).toBe(200);
  const link = new URL(created.body.data.payments.redirectLink as string);
  const page = await inProcess(sandbox).post(link.pathname).type('form').send({ action: 'cancel' });
  return { warnings: warningsOf(created), status: page.status, location: page.headers.location };
}

describe('a redirectUrl with a character outside RFC 3986', () => {
  for (const character of OUTSIDE_RFC_3986) {
    it(`${JSON.stringify(character)}: warned about, and the authentication page shows the result instead of redirecting`, async () => {
      const redirectUrl = `https://merchant.example.com/return?note=a${character}b`;
      const seen = await approvedCard(redirectUrl);
      expect(seen.warnings).toBe(`redirectUrl: ${NEVER}`);
      expect(seen.status).toBe(200);
      expect(seen.location).toBeUndefined();
    });
  }

  it('in the path, as in the query: the same answer', async () => {
    const seen = await approvedCard('https://merchant.example.com/re turn');
    expect([seen.warnings, seen.status]).toEqual([`redirectUrl: ${NEVER}`, 200]);
  });
});

describe('a redirectUrl the document takes and a browser cannot parse', () => {
  for (const redirectUrl of ['https://merchant.example.com:99999/return', 'http://1.2.3.256/return']) {
    it(`${redirectUrl}: warned about, and the authentication page shows the result instead of redirecting`, async () => {
      const seen = await approvedCard(redirectUrl);
      expect([seen.warnings, seen.status, seen.location]).toEqual([`redirectUrl: ${NEVER}`, 200, undefined]);
    });
  }
});

describe('a callbackUrl with a character outside RFC 3986', () => {
  for (const character of [' ', '|', '\\']) {
    it(`${JSON.stringify(character)}: warned about, and the cancelled checkout shows the result instead of redirecting`, async () => {
      const seen = await cancelledCheckout(`https://merchant.example.com/callback${character}x`);
      expect(seen.warnings).toBe(`callbackUrl: ${NEVER}`);
      expect(seen.status).toBe(200);
      expect(seen.location).toBeUndefined();
    });
  }
});

describe('a well-formed URL', () => {
  it('with a query string and a percent-encoded space: no warning, and the page redirects (303) with the outcome added', async () => {
    const seen = await approvedCard('https://merchant.example.com/return?cart=42&note=a%20b');
    expect(seen.warnings).toBe('');
    expect(seen.status).toBe(303);
    const location = new URL(seen.location!);
    expect(`${location.origin}${location.pathname}`).toBe('https://merchant.example.com/return');
    expect(location.searchParams.get('cart')).toBe('42');
    expect(location.searchParams.get('note')).toBe('a b');
    expect(location.searchParams.get('code')).toBe('00');
  });

  it('as a checkout callbackUrl: no warning, and the cancelled checkout redirects', async () => {
    const seen = await cancelledCheckout('https://merchant.example.com/callback?order=7');
    expect(seen.warnings).toBe('');
    expect(seen.status).toBe(303);
    expect(seen.location).toMatch(/^https:\/\/merchant\.example\.com\/callback\?order=7&paymentReference=/);
  });
});

describe('isRedirectTarget', () => {
  it('takes absolute http and https URLs as RFC 3986 writes them, that a browser parses', () => {
    for (const url of ['https://merchant.example.com/return', 'http://127.0.0.1:3000/r?a=1&b=%2F#top', 'https://[::1]:8443/', "https://shop.example/a/b;c=d?x=(1)*!$'"]) {
      expect(isRedirectTarget(url), url).toBe(true);
    }
  });

  it('refuses every other string: other schemes, relative or bare hosts, characters a browser would encode, a bad escape, a port out of range', () => {
    for (const url of [
      '', 'www.testapp.com', 'http:shop.com', '/return', 'HTTPS://MERCHANT.EXAMPLE.COM/', 'ftp://merchant.example.com/', 'javascript:alert(1)',
      'https://merchant.example.com/a b', 'https://merchant.example.com/%zz', 'https://merchant.example.com:99999/', 'http://', ' https://merchant.example.com/',
      ...OUTSIDE_RFC_3986.map((character) => `https://merchant.example.com/${character}`),
    ]) {
      expect(isRedirectTarget(url), JSON.stringify(url)).toBe(false);
    }
  });
});
