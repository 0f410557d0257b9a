import { readFile } from 'node:fs/promises';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_API_DOCUMENT, startSandbox, type Sandbox } from '../../../src/index.js';
import { CONTROL_OPERATIONS } from '../../../src/control/registry.js';
import { CONTROL_OPERATION_IDS } from '../../../src/model/operations.js';

/**
 * One registry of control operations (src/control/registry.ts): every
 * operation of openapi/control-api.yaml is in it with the document's route,
 * and the core serves each of them, and nothing else, through it.
 */

const METHODS = ['get', 'put', 'post', 'delete'] as const;

/** The document's operations, read as the document it is: `[operationId, "METHOD /path", open]`. */
async function documented(): Promise<Array<[string, string, boolean]>> {
  const document = parse(await readFile(CONTROL_API_DOCUMENT, 'utf8')) as OpenAPIV3_1.Document;
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = (item as OpenAPIV3_1.PathItemObject)[method];
      return operation?.operationId ? [[operation.operationId, `${method.toUpperCase()} ${path}`, operation.security?.length === 0] as [string, string, boolean]] : [];
    }),
  );
}

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ listen: false, controlToken: 'registry-token' });
});
afterAll(() => sandbox.close());

/** One control request in process, with the control token unless `bare`: its status and its body as JSON. */
async function ask(method: string, path: string, bare = false): Promise<{ status: number; body: any }> {
  const answer = await sandbox.handle({ method, url: `/__sandbox${path}`, headers: bare ? {} : { authorization: 'Bearer registry-token' } });
  const text = answer.body.toString('utf8');
  return { status: answer.status, body: text && answer.headers['content-type']?.includes('json') ? JSON.parse(text) : text };
}

describe('the control registry', () => {
  it('holds every operation of the document, with its method and path, and no other', async () => {
    const operations = await documented();
    expect(operations.length).toBeGreaterThan(35);
    for (const [id, route] of operations) {
      expect(CONTROL_OPERATIONS, `${id} is in the registry`).toHaveProperty(id);
      expect(CONTROL_OPERATIONS[id as keyof typeof CONTROL_OPERATIONS].route, `${id}'s route`).toBe(route);
    }
    expect(Object.keys(CONTROL_OPERATIONS).sort()).toEqual(operations.map(([id]) => id).sort());
    expect([...CONTROL_OPERATION_IDS].sort()).toEqual(Object.keys(CONTROL_OPERATIONS).sort());
  });

  it('marks reset, fixtures and snapshots as replacing the state as a whole, and the event stream as a stream', () => {
    const whole = Object.entries(CONTROL_OPERATIONS).filter(([, entry]) => entry.wholeState).map(([id]) => id);
    expect(whole.sort()).toEqual(['getSnapshot', 'loadFixtures', 'putSnapshot', 'resetState']);
    expect(Object.entries(CONTROL_OPERATIONS).filter(([, entry]) => entry.stream).map(([id]) => id)).toEqual(['streamEvents']);
  });

  it('asks for a known merchant on every operation that writes for the {publicKey} of its path, and documents its 404', async () => {
    const document = parse(await readFile(CONTROL_API_DOCUMENT, 'utf8')) as OpenAPIV3_1.Document;
    // A PUT or POST on a merchant's path stores something for that merchant (docs/decisions.md#d42-webhook-urls-and-clocks-stored).
    const writes = (await documented()).filter(([, route]) => /^(PUT|POST) \S*\{publicKey\}/.test(route)).map(([id]) => id);
    expect(writes.sort()).toEqual(['advanceClock', 'createNotificationFault', 'setWebhook', 'startGoLiveRun', 'triggerNotification']);
    // The go-live report and a run's view read what the store keeps of a merchant: a key it does not know has neither (404).
    const reads = ['getGoLiveReport', 'getGoLiveRun'];
    expect(Object.entries(CONTROL_OPERATIONS).filter(([, entry]) => entry.knownMerchant).map(([id]) => id).sort()).toEqual([...writes, ...reads].sort());
    for (const id of writes) {
      const [method, path] = CONTROL_OPERATIONS[id as keyof typeof CONTROL_OPERATIONS].route.split(' ') as [string, string];
      const operation = (document.paths![path] as OpenAPIV3_1.PathItemObject)[method.toLowerCase() as 'put' | 'post']!;
      expect(Object.keys(operation.responses ?? {}), `${id} documents 404`).toContain('404');
    }
  });

  it('asks for the control token on every operation but those the document opens (security: [])', async () => {
    for (const [id, route, open] of await documented()) {
      const [method, path] = route.split(' ') as [string, string];
      // Each path parameter filled with a value its schema takes, so that an open operation is answered.
      const filled = path.replace('{document}', 'control-api.json').replace('{schema}', 'fixtures.json').replace(/\{[^}]+\}/g, 'x');
      if (id === 'streamEvents') continue;
      const answer = await ask(method, filled, true);
      if (open) expect(answer.status, id).not.toBe(401);
      else expect(answer.status, id).toBe(401);
    }
    expect((await ask('GET', '/health')).status).toBe(200);
  });

  it('routes as it always did: any case, a trailing slash, and 404 NOT_FOUND for a path it does not have', async () => {
    expect((await ask('GET', '/HEALTH/')).status).toBe(200);
    expect((await ask('GET', '/Scenarios')).body.scenarios.length).toBeGreaterThan(10);
    const missing = await ask('GET', '/no-such-thing');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Not Found', error: 'NOT_FOUND' });
    const wrongMethod = await ask('PUT', '/scenarios');
    expect(wrongMethod.status).toBe(404);
  });
});
