import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM } from './chromium.js';

/**
 * Browser harness: Chromium (Debian's, or CHROMIUM_PATH) driven by
 * playwright-core (no browser download), a merchant callback server on
 * loopback, and screenshots kept under test-results/.
 */

/**
 * Starts headless Chromium.
 * @throws Error saying how to install it when it is missing: met in CI, which
 * runs the browser tests whatever the machine has (elsewhere they are skipped).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A merchant's web server: it records every callback it receives and shows it on a page. */
export interface MerchantSite {
  url: string;
  callbacks: URL[];
  close(): Promise<void>;
}

/** Starts a merchant callback server on 127.0.0.1. */
export async function merchantSite(): Promise<MerchantSite> {
  const callbacks: URL[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://merchant.local');
    callbacks.push(url);
    const outcome = [...url.searchParams].map(([name, value]) => `<dt>${name}</dt><dd data-field="${name}">${value.replace(/[<>&"]/g, '')}</dd>`).join('');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Merchant</title><h1>Merchant received the customer</h1><dl>${outcome}</dl>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    callbacks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Saves a full-page screenshot as test-results/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir('test-results', { recursive: true });
  const path = `test-results/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}
