// @module-tag browser
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { accountPayment, ApiClient, listeningSandbox } from '../support/sandbox.js';
import { launchBrowser } from './support.js';

/**
 * A web page of another origin, open in the developer's Chromium, tries to
 * claim a merchant the developer has not used yet: it posts the merchant's
 * public key with a secret key of its own to the sandbox's key exchange, as
 * a `no-cors` text/plain fetch and as a text/plain form, neither of which
 * needs a preflight. The sandbox must refuse both, store nothing, and leave
 * the real key pair working.
 */

let sandbox: Sandbox;
let api: ApiClient;
let browser: Browser;
let attacker: Server;
let attackerPort: number;
const victim = { publicKey: `SBTESTPUBK_${randomBytes(8).toString('hex')}`, secretKey: `SBTESTSECK_${randomBytes(8).toString('hex')}` };
const forged = `SBTESTSECK_${randomBytes(8).toString('hex')}`;

/** The attacking pages: one fetches, one posts a form whose single field spells the JSON body. */
function pageOf(path: string): string {
  const target = `${sandbox.apiBase}/encrypt/keys`;
  const body = JSON.stringify({ key: `${forged}.${victim.publicKey}` });
  if (path === '/fetch') {
    return `<!doctype html><title>Win a prize</title><script>
      fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(body)} })
        .then(() => { document.title = 'sent'; }, (error) => { document.title = 'failed ' + error; });
    </script>`;
  }
  // text/plain forms send name=value: the name holds the JSON up to a field whose value swallows the "=".
  const name = `{"key":"${forged}.${victim.publicKey}","pad":"`;
  return `<!doctype html><title>Win a prize</title>
    <form method="POST" enctype="text/plain" action="${target}"><input type="hidden" name='${name}' value='"}'></form>
    <script>document.forms[0].submit();</script>`;
}

beforeAll(async () => {
  sandbox = await listeningSandbox();
  api = await ApiClient.for(sandbox);
  attacker = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(pageOf(req.url ?? '/'));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
  browser = await launchBrowser();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await sandbox?.close();
});

/** The journal's key exchanges so far, as status codes. */
const keyExchanges = () => sandbox.journal.page({ path: '/encrypt/keys' }, 100).entries.map((entry) => entry.status);

describe('a page of another origin in Chromium', () => {
  it('cannot claim a merchant with a no-cors text/plain fetch, cross-site (localhost) or same-site (another port)', { timeout: 20_000 }, async () => {
    for (const origin of [`http://localhost:${attackerPort}`, `http://127.0.0.1:${attackerPort}`]) {
      const before = keyExchanges().length;
      const page = await browser.newPage();
      await page.goto(`${origin}/fetch`);
      await page.waitForFunction(() => document.title !== 'Win a prize');
      expect(await page.title(), origin).toBe('sent');
      await page.close();
      // The request reached the sandbox, and was refused there.
      await expect.poll(() => keyExchanges().length, { timeout: 5_000 }).toBe(before + 1);
      expect(keyExchanges()[0], origin).toBe(403);
      expect(sandbox.store.merchant(victim.publicKey), origin).toBeUndefined();
    }
  });

  it('cannot claim it with a text/plain form post either', { timeout: 20_000 }, async () => {
    const before = keyExchanges().length;
    const page = await browser.newPage();
    const answered = page.waitForResponse((response) => response.url() === `${sandbox.apiBase}/encrypt/keys`);
    await page.goto(`http://localhost:${attackerPort}/form`);
    const response = await answered;
    expect(response.status()).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'PERMISSION' });
    await page.close();
    expect(keyExchanges().length).toBe(before + 1);
    expect(sandbox.store.merchant(victim.publicKey)).toBeUndefined();
  });

  it('leaves the real key pair working', async () => {
    const exchanged = await api.send('POST', '/encrypt/keys', { key: `${victim.secretKey}.${victim.publicKey}` });
    expect(exchanged.status).toBe(200);
    const token: string = exchanged.body.data.EncryptedSecKey.encryptedKey;
    const paid = await api.send('POST', '/payments/initiates', accountPayment({ publicKey: victim.publicKey }), `Bearer ${token}`);
    expect(paid.status).toBe(200);
    expect(paid.body.data.code).toBe('20');
    expect(sandbox.store.merchant(victim.publicKey)?.secretKey).toBe(victim.secretKey);
  });
});
