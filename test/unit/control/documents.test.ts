import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_API_DOCUMENT, PAYMENTS_API_DOCUMENT, startSandbox, type Sandbox } from '../../../src/index.js';
import { fetchOf } from '../../support/in-process.js';

/** GET /__sandbox/openapi/{document}: the documents, from the running sandbox, naming it as their server. */

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ listen: false, publicUrl: 'http://sandbox.test:4010' });
});
afterAll(() => sandbox.close());

const get = (name: string, headers: Record<string, string> = {}) => fetchOf(sandbox)(`${sandbox.url}/__sandbox/openapi/${name}`, { headers });

describe('the served OpenAPI documents', () => {
  it('serves the Payments API document as YAML, comments kept, with this sandbox as its server', async () => {
    const response = await get('payments-api.yaml');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    const text = await response.text();
    const served = parse(text);
    const shipped = parse(await readFile(PAYMENTS_API_DOCUMENT, 'utf8'));
    expect(served.servers).toEqual([{ url: 'http://sandbox.test:4010/api/v2', description: 'this sandbox' }]);
    expect({ ...served, servers: undefined }).toEqual({ ...shipped, servers: undefined });
    const firstComment = (await readFile(PAYMENTS_API_DOCUMENT, 'utf8')).split('\n').find((line) => /^\s*#/.test(line));
    if (firstComment) expect(text).toContain(firstComment.trim());
  });

  it('serves both documents as JSON, the control API mounted under /__sandbox', async () => {
    const payments = await get('payments-api.json');
    expect(payments.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await payments.json()) as any).servers[0].url).toBe('http://sandbox.test:4010/api/v2');
    const control = (await (await get('control-api.json')).json()) as any;
    expect(control.servers).toEqual([{ url: 'http://sandbox.test:4010/__sandbox', description: 'this sandbox' }]);
    expect(control.paths['/openapi/{document}'].get.operationId).toBe('getApiDocument');
    expect(Object.keys(control.paths)).toEqual(Object.keys(parse(await readFile(CONTROL_API_DOCUMENT, 'utf8')).paths));
  });

  it('refuses a name it does not serve with 400, reading no file', async () => {
    for (const name of ['payments-api.xml', '..%2Fpackage.json', 'secrets.yaml']) {
      const response = await get(name);
      expect(response.status, name).toBe(400);
      expect(((await response.json()) as any).error).toBe('INPUT');
    }
  });
});

describe('the served documents behind a control token', () => {
  it('serves them without the token, like health: they are the files the package ships, and the API reference reads them', async () => {
    const guarded = await startSandbox({ listen: false, controlToken: 'qa-token' });
    try {
      for (const name of ['payments-api.yaml', 'payments-api.json', 'control-api.yaml', 'control-api.json']) {
        expect((await fetchOf(guarded)(`${guarded.url}/__sandbox/openapi/${name}`)).status, name).toBe(200);
      }
      expect(parse(await (await fetchOf(guarded)(`${guarded.url}/__sandbox/openapi/payments-api.yaml`)).text()).servers[0].url).toBe(`${guarded.url}/api/v2`);
      // Only those four: any other name is a control request like the rest.
      expect((await fetchOf(guarded)(`${guarded.url}/__sandbox/openapi/secrets.yaml`)).status).toBe(401);
      expect((await fetchOf(guarded)(`${guarded.url}/__sandbox/openapi/secrets.yaml`, { headers: { authorization: 'Bearer qa-token' } })).status).toBe(400);
    } finally {
      await guarded.close();
    }
  });
});
