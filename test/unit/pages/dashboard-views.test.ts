import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/index.js';
// The module the dashboard's router runs in the browser, and the sandbox reads for its 200 or 404.
import { viewOf } from '../../../src/pages/assets/dashboard/views.js';

/**
 * The dashboard's addresses, defined once (src/pages/assets/dashboard/views.js;
 * docs/decisions.md#d83-dashboard-addresses): the view each names, and the
 * status the sandbox answers its shell page with, which agree.
 */

const ADDRESSES: Array<[path: string, view: string | undefined, params: Record<string, string>]> = [
  ['', 'overview', {}],
  ['notifications', 'notifications', {}],
  ['clock/', 'clock', {}],
  ['journal', 'journal', {}],
  ['merchants/SBTESTPUBK_abc', 'merchant', { publicKey: 'SBTESTPUBK_abc' }],
  ['merchants/SBTESTPUBK_abc/go-live', 'go-live', { publicKey: 'SBTESTPUBK_abc' }],
  ['merchants/SBTESTPUBK_abc/payments/REF%2F1', 'payment', { publicKey: 'SBTESTPUBK_abc', paymentReference: 'REF/1' }],
  ['merchants', undefined, {}],
  ['merchants/SBTESTPUBK_abc/orders/1', undefined, {}],
  ['merchants/SBTESTPUBK_abc/go-live/runs', undefined, {}],
  ['settings', undefined, {}],
  ['merchants/%E0%A4%A', undefined, {}],
];

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ listen: false });
});
afterAll(() => sandbox.close());

describe("the dashboard's addresses", () => {
  it.each(ADDRESSES)('/__sandbox/dashboard/%s names %s', async (path, view, params) => {
    const found = viewOf(path);
    expect(found?.view).toBe(view);
    if (view !== undefined) expect(found!.params).toEqual(params);
    // The sandbox answers the same shell page, 200 for an address naming a view and 404 for any other.
    const page = await sandbox.handle({ method: 'GET', url: `/__sandbox/dashboard/${path}` });
    expect(page.status).toBe(view === undefined ? 404 : 200);
    expect(page.body.toString('utf8')).toContain('<html');
  });
});
