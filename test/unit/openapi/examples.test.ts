import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PAYMENTS_API_DOCUMENT, type Sandbox } from '../../../src/index.js';
import { OPERATIONS } from '../../../src/domain/registry.js';
import { ApiClient, sandboxForTest } from '../../support/sandbox.js';

/**
 * Replays every request example of openapi/payments-api.yaml, in document
 * order, against one fresh sandbox, and checks that each is answered as the
 * response example of the same name documents it.
 */

const document = parse(readFileSync(PAYMENTS_API_DOCUMENT, 'utf8'));
const TEST_KEY = { publicKey: 'SBTESTPUBK_t4G7sQ0pX9mZ2kLr', secretKey: 'SBTESTSECK_8vNc3YhQ1wFj6TbE' };
const BEARER = 'Bearer SBTOKEN_U0JURVNUUFVCS190NEc3c1EwcFg5bVoya0xy.17123d41b6e39ef711db68f526c5fd24';
const BASIC = `Basic ${Buffer.from(`${TEST_KEY.publicKey}:${TEST_KEY.secretKey}`).toString('base64')}`;

interface Replay {
  operationId: string;
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: Record<string, unknown>;
  auth?: string;
  expected: { status: number; body: any };
}

const resolve = (node: any): any => (node?.$ref ? resolve(pointer(node.$ref)) : node);
const pointer = (ref: string): any =>
  ref.slice(2).split('/').reduce((node: any, part: string) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);

function replays(): Replay[] {
  const list: Replay[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of ['get', 'post', 'put'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const responses = Object.entries<any>(operation.responses).map(([status, response]) => [Number(status), resolve(response)] as const);
      const answerTo = (name: string) => {
        for (const [status, response] of responses) {
          const example = response.content?.['application/json']?.examples?.[name];
          if (example) return { status, body: resolve(example).value };
        }
        throw new Error(`${operation.operationId}: no response example named ${name}`);
      };
      const secured = operation.security?.length === 0 ? undefined : operation.security?.some((s: any) => 'basicAuth' in s) ? BASIC : BEARER;
      const requestExamples = operation.requestBody ? resolve(operation.requestBody).content['application/json'].examples : undefined;
      if (requestExamples) {
        for (const [name, example] of Object.entries<any>(requestExamples)) {
          list.push({ operationId: operation.operationId, name, method: method.toUpperCase() as Replay['method'], path, body: resolve(example).value, auth: secured, expected: answerTo(name) });
        }
      } else {
        // Each example name of a parameter is one request; a path's other parameters take their example of that name, or their first.
        const parameters = (operation.parameters ?? []).map(resolve);
        const names = new Set<string>(parameters.flatMap((parameter: any) => Object.keys(parameter.examples ?? {})));
        for (const name of names) {
          let filled = path;
          const query: string[] = [];
          for (const parameter of parameters) {
            const examples = parameter.examples ?? {};
            const value = resolve(examples[name] ?? Object.values(examples)[0]).value;
            if (parameter.in === 'query') query.push(`${parameter.name}=${encodeURIComponent(value)}`);
            else filled = filled.replace(`{${parameter.name}}`, value);
          }
          if (query.length > 0) filled = `${filled}?${query.join('&')}`;
          list.push({ operationId: operation.operationId, name, method: method.toUpperCase() as Replay['method'], path: filled, auth: secured, expected: answerTo(name) });
        }
      }
    }
  }
  return list;
}

const all = replays();
let sandbox: Sandbox;
let api: ApiClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  api = await ApiClient.for(sandbox);
});
afterAll(() => sandbox.close());

describe('the OpenAPI document\'s examples', () => {
  it('has a request example for every operation with a body, all of them paired with a response example', () => {
    const replayed = new Set(all.map((replay) => replay.operationId));
    const withBody = Object.values<any>(document.paths).flatMap((item) => Object.values<any>(item)).filter((operation) => operation?.requestBody);
    expect(withBody.length).toBeGreaterThan(20);
    expect(withBody.map((operation) => operation.operationId).filter((id) => !replayed.has(id))).toEqual([]);
    // Beyond those, the look-ups with examples of their parameters: every operation of the document but three.
    expect(replayed.size).toBeGreaterThanOrEqual(Object.keys(OPERATIONS).length - 3);
    expect(all.length).toBeGreaterThanOrEqual(30);
  });

  // Sequential on purpose: later examples complete, refund and cancel the payments earlier ones create.
  it.each(all.map((replay) => [`${replay.operationId} ${replay.name}`, replay] as const))('%s', async (_title, replay) => {
    const response = await api.send(replay.method, replay.path, replay.body, replay.auth);
    const { expected } = replay;
    expect(response.status).toBe(expected.status);
    if (expected.body.payload) {
      // The bulk token charge's envelope: its code and message, and its payload's shape (times and ids are the run's own).
      expect([response.body.code, response.body.message]).toEqual([expected.body.code, expected.body.message]);
      expect(Object.keys(response.body.payload).sort()).toEqual(Object.keys(expected.body.payload).sort());
      const items = (payload: any) => (payload.content ?? []).map(({ createdAt: _c, updatedAt: _u, ...item }: any) => item);
      expect(items(response.body.payload)).toEqual(items(expected.body.payload));
      return;
    }
    if (!expected.body.data) {
      expect(response.body).toEqual(expected.body);
      return;
    }
    const { data } = response.body;
    expect(response.body.status).toBe(expected.body.status);
    expect({ code: data.code, message: data.message }).toEqual({ code: expected.body.data.code, message: expected.body.data.message });
    const documented = expected.body.data.payments;
    if (documented) {
      expect(Object.keys(data.payments).sort()).toEqual(Object.keys(documented).sort());
      for (const field of ['paymentReference', 'linkingReference', 'status', 'amount'] as const) {
        if (field in documented) expect(data.payments[field], field).toEqual(documented[field]);
      }
      if (documented.redirectLink) expect(data.payments.redirectLink).toBe(documented.redirectLink.replace('http://127.0.0.1:4010', sandbox.publicUrl));
      if (documented.redirectUrl) expect(data.payments.redirectUrl).toBe(documented.redirectUrl.replace('http://127.0.0.1:4010', sandbox.publicUrl));
    }
    if (expected.body.data.products) {
      const pick = (items: any[]) => items.map(({ orderId, amount, productId, paymentReference }) => ({ orderId, amount, productId, paymentReference }));
      expect(pick(data.products)).toEqual(pick(expected.body.data.products));
    }
    // A subscription's fields, but for the time it was made.
    const subscriptionsOf = (found: unknown) => [found ?? []].flat().map(({ createdAt: _createdAt, ...fields }: any) => fields);
    if (expected.body.data.subscriptions) expect(subscriptionsOf(data.subscriptions)).toEqual(subscriptionsOf(expected.body.data.subscriptions));
    if (expected.body.data.EncryptedSecKey) expect(data.EncryptedSecKey).toEqual(expected.body.data.EncryptedSecKey);
    if (expected.body.data.hash) expect(data.hash).toEqual(expected.body.data.hash);
  });
});
