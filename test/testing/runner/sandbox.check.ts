import { expect, inject, it } from 'vitest';
import { connectToSandbox, type ProvidedSandbox } from '../../../src/testing/index.js';

/**
 * Run inside the run that test/testing/vitest-global-setup.test.ts starts:
 * what a test file of a user sees of the sandbox its global set-up started.
 * RUNNER_PAYMENT, when set, names a payment the fixtures made.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    paymentsSandbox: ProvidedSandbox;
  }
}

it('is provided to the tests, as paymentsSandbox', () => {
  const provided = inject('paymentsSandbox');
  expect(provided.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(provided.apiBase).toBe(`${provided.url}/api/v2`);
  expect(provided.publicKey).toMatch(/^SBTESTPUBK_/);
  expect(provided.secretKey).toMatch(/^SBTESTSECK_/);
  console.log(`sandbox of the run: ${provided.url} ${provided.publicKey}`);
});

it('is named by the environment, for connectToSandbox', async () => {
  const provided = inject('paymentsSandbox');
  const sandbox = connectToSandbox();
  expect(sandbox.url).toBe(provided.url);
  expect(sandbox.keyPair).toEqual({ publicKey: provided.publicKey, secretKey: provided.secretKey });
  const health = await fetch(`${sandbox.url}/__sandbox/health`);
  expect(health.status).toBe(200);
});

it('answers the key pair it handed out, and holds what the fixtures made', async () => {
  const { apiBase, publicKey, secretKey } = inject('paymentsSandbox');
  const keys = await fetch(`${apiBase}/encrypt/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: `${secretKey}.${publicKey}` }) });
  expect(keys.status).toBe(200);
  const wanted = process.env.RUNNER_PAYMENT;
  const { payments } = (await (await fetch(`${connectToSandbox().url}/__sandbox/payments?publicKey=${publicKey}`)).json()) as { payments: Array<{ paymentReference: string }> };
  expect(payments.map((payment) => payment.paymentReference)).toEqual(wanted ? [wanted] : []);
});
