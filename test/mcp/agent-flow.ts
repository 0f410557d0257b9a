import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import { answer, freshMerchant, toolError } from '../support/mcp.js';
import { Receiver } from '../support/receiver.js';
import { cardPayment, freshReference } from '../support/sandbox.js';

/**
 * What a coding agent does with the sandbox's MCP server (README, "Agents"),
 * through tools alone, over whichever transport the client was connected
 * with: the end-to-end tests of stdio and Streamable HTTP run the same steps.
 */

/**
 * The agent's session: a notification URL on a receiver of this test, a card
 * payment declined and one that succeeds (OTP 123456), the merchant's clock
 * moved on, a payment's story and its notification deliveries read, and a bad
 * argument answered with a tool error naming the field.
 */
export async function agentFlow(client: Client): Promise<void> {
  const receiver = await Receiver.start();
  try {
    const merchant = freshMerchant();
    const { publicKey } = merchant;
    // A notification URL is kept for a merchant the sandbox knows only: the tool error says how a key becomes one.
    expect(await toolError(client, 'setWebhook', { publicKey, body: { url: receiver.url } })).toMatch(/404 NOT_FOUND: \S+ is no merchant of this sandbox: exchange its keys first/);

    // The first request of a merchant the sandbox does not know: its secret key is needed, and the tool exchanges the keys itself.
    expect(await answer(client, 'paymentsApiRequest', { ...merchant, method: 'GET', path: '/networks' })).toMatchObject({ status: 200 });
    expect(await answer(client, 'setWebhook', { publicKey, body: { url: receiver.url } })).toMatchObject({ publicKey, url: receiver.url, source: 'merchant' });
    const declinedReference = freshReference();
    const declined = await answer(client, 'paymentsApiRequest', {
      ...merchant, method: 'POST', path: '/payments/initiates', body: cardPayment({ publicKey, paymentReference: declinedReference, cardNumber: '4000000000000002' }),
    });
    expect(declined).toMatchObject({ status: 200, scenario: 'card-declined', body: { data: { code: 'S12' } } });

    // From then on the sandbox knows the merchant: its public key is enough.
    const paidReference = freshReference();
    const initiated = await answer(client, 'paymentsApiRequest', { publicKey, method: 'POST', path: '/payments/initiates', body: cardPayment({ publicKey, paymentReference: paidReference }) });
    expect(initiated).toMatchObject({ status: 200, body: { data: { code: 'S20' } } });
    const validated = await answer(client, 'paymentsApiRequest', {
      publicKey, method: 'POST', path: '/payments/validate', body: { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' },
    });
    expect(validated).toMatchObject({ status: 200, body: { data: { code: '00' } } });
    const queried = await answer(client, 'paymentsApiRequest', { publicKey, method: 'GET', path: `/payments/query/${paidReference}` });
    expect(queried.status).toBe(200);
    // One key exchange for the merchant, however many requests it sent.
    expect(await answer(client, 'countRequests', { publicKey, path: '/encrypt/keys' })).toMatchObject({ count: 1 });

    const advanced = await answer(client, 'advanceClock', { publicKey, body: { by: 'PT2H' } });
    expect(advanced).toMatchObject({ publicKey, offset: 'PT2H', offsetMs: 7_200_000 });
    expect(await answer(client, 'getClock', { publicKey })).toMatchObject({ offsetMs: 7_200_000 });

    const story = await answer(client, 'getPaymentStory', { paymentReference: paidReference, publicKey });
    expect(story.payment).toMatchObject({ paymentReference: paidReference, status: 'SUCCESSFUL' });
    expect(story.requests.map((entry: { method: string; path: string }) => `${entry.method} ${entry.path}`)).toEqual([
      'POST /payments/initiates', 'POST /payments/validate', `GET /payments/query/${paidReference}`,
    ]);
    expect(await answer(client, 'getPayment', { paymentReference: declinedReference, publicKey })).toMatchObject({ status: 'FAILED', code: 'S12' });

    // Each payment's notification reached the receiver, and its delivery says so.
    await expect.poll(() => receiver.of(paidReference).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await answer(client, 'listDeliveries', { publicKey, paymentReference: paidReference })).deliveries.map((delivery: { state: string }) => delivery.state), { timeout: 10_000 }).toEqual(['delivered']);
    const [delivery] = (await answer(client, 'listDeliveries', { publicKey, paymentReference: paidReference })).deliveries;
    expect(delivery).toMatchObject({ paymentReference: paidReference, event: { eventType: 'transaction' } });
    expect(delivery.attempts[0]).toMatchObject({ status: 200 });
    await expect.poll(() => receiver.of(declinedReference).length, { timeout: 10_000 }).toBeGreaterThan(0);

    // A bad argument is a tool error carrying the control API's message, which names the field; never a crash.
    expect(await toolError(client, 'setWebhook', { publicKey, body: { url: 42 } })).toMatch(/\burl\b/);
    expect(await toolError(client, 'advanceClock', { publicKey, body: { by: 2 } })).toMatch(/\bby\b/);
    expect(await toolError(client, 'listPayments', { publicKey, limit: 0 })).toMatch(/\blimit\b/);
    expect(await toolError(client, 'getPaymentStory', { publicKey })).toMatch(/paymentReference is required/);
    expect(await toolError(client, 'paymentsApiRequest', { publicKey: freshMerchant().publicKey, method: 'GET', path: '/networks' })).toMatch(/secretKey is required/);
    // The server still serves after them.
    expect(await answer(client, 'getHealth', {})).toEqual({ status: 'ok' });
  } finally {
    await receiver.close();
  }
}
