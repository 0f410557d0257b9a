import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { controlRequestOf, controlResult } from '../../../src/mcp/control-call.js';
import { CONTROL_API_DOCUMENT } from '../../../src/index.js';
import { CONTROL_OPERATIONS } from '../../../src/control/registry.js';
import { controlTools, DESCRIPTION_LIMIT, LEFT_OUT_OPERATIONS, readControlDocument } from '../../../src/mcp/control-tools.js';
import { inlineSchema } from '../../../src/mcp/schema-refs.js';

/**
 * Control tools derived from a document (README, "Agents"): a tiny document
 * of its own here, so that what an operation added to control-api.yaml
 * becomes is seen without the real one.
 */

const document = {
  openapi: '3.1.0',
  info: { title: 'tiny', version: '1' },
  paths: {
    '/widgets/{widgetId}': {
      parameters: [{ $ref: '#/components/parameters/WidgetId' }],
      get: {
        operationId: 'getWidget',
        summary: 'Show a widget',
        description: 'The widget as stored.\n\nA second paragraph, also kept.\n\n' + 'A third paragraph far too long. '.repeat(40),
        parameters: [{ name: 'verbose', in: 'query', schema: { type: 'boolean' }, description: 'Say more.' }],
        responses: { '200': { description: 'ok' } },
      },
      put: {
        operationId: 'putWidget',
        summary: 'Replace a widget',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Widget' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/events': { get: { operationId: 'streamEvents', summary: 'A stream', responses: { '200': { description: 'ok' } } } },
  },
  components: {
    parameters: { WidgetId: { name: 'widgetId', in: 'path', required: true, schema: { type: 'string', example: 'w_1' } } },
    schemas: {
      Widget: {
        type: 'object',
        required: ['name'],
        'x-internal': true,
        properties: { name: { type: 'string', maxLength: 10 }, example: { $ref: '#/components/schemas/Part' }, parts: { type: 'array', items: { $ref: '#/components/schemas/Part' } } },
      },
      Part: { type: 'object', properties: { of: { $ref: '#/components/schemas/Part' } } },
    },
  },
} as unknown as OpenAPIV3_1.Document;

/** The tiny document's operations as a registry lists them, the stream among them. */
const routes = [
  { id: 'getWidget', route: 'GET /widgets/{widgetId}' },
  { id: 'putWidget', route: 'PUT /widgets/{widgetId}' },
  { id: 'streamEvents', route: 'GET /events' },
];

describe('controlTools', () => {
  it('makes a tool of each operation, the left-out ones aside, with its parameters and body from the document', () => {
    const tools = controlTools(document, routes);
    expect(tools.map((tool) => tool.name)).toEqual(['getWidget', 'putWidget']);
    const [get, put] = tools;
    expect(get).toMatchObject({ method: 'GET', path: '/widgets/{widgetId}', pathParameters: ['widgetId'], queryParameters: ['verbose'], body: 'none', title: 'Show a widget' });
    expect(get!.inputSchema).toEqual({
      type: 'object',
      properties: { widgetId: { type: 'string', examples: ['w_1'] }, verbose: { type: 'boolean', description: 'Say more.' } },
      required: ['widgetId'],
      additionalProperties: false,
    });
    expect(get!.description).toBe('Show a widget. The widget as stored. A second paragraph, also kept. (control API: GET /__sandbox/widgets/{widgetId})');
    expect(get!.description.length).toBeLessThan(DESCRIPTION_LIMIT + 60);
    expect(put!.body).toBe('required');
    expect(put!.inputSchema.required).toEqual(['widgetId', 'body']);
    expect(put!.inputSchema.properties.body).toMatchObject({ type: 'object', required: ['name'], properties: { name: { maxLength: 10 }, example: { type: 'object' } } });
    expect(put!.inputSchema.properties.body).not.toHaveProperty('x-internal');
  });

  it('turns a call into the request it stands for, and an answer into the result', () => {
    const [get, put] = controlTools(document, routes);
    expect(controlRequestOf(get!, { widgetId: 'a b/c', verbose: true }, 'secret')).toEqual({
      method: 'GET', url: '/__sandbox/widgets/a%20b%2Fc?verbose=true', headers: { accept: 'application/json', authorization: 'Bearer secret' },
    });
    expect(controlRequestOf(put!, { widgetId: 'w', body: { name: 'x' } })).toEqual({
      method: 'PUT', url: '/__sandbox/widgets/w', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: '{"name":"x"}',
    });
    expect(controlRequestOf(get!, { widgetId: 'w', colour: 'red' })).toEqual({ refused: 'colour: getWidget has no such argument (it takes widgetId, verbose)' });
    const refusal = controlResult(put!, { status: 400, headers: {}, body: Buffer.from('{"message":"name must be string","error":"INPUT"}') });
    expect(refusal).toEqual({
      content: [{ type: 'text', text: 'putWidget: the control API answered 400 INPUT: name must be string' }],
      structuredContent: { status: 400, message: 'name must be string', error: 'INPUT' },
      isError: true,
    });
    expect(controlResult(get!, { status: 200, headers: {}, body: Buffer.from('[1,2]') })).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
  });
});

describe('inlineSchema', () => {
  it('inlines references, keeps keywords beside one, and stops at a reference met inside itself', () => {
    const part = inlineSchema({ $ref: '#/components/schemas/Part', description: 'One part.' }, document);
    expect(part).toEqual({ type: 'object', properties: { of: { description: 'a Part, as above' } }, description: 'One part.' });
    expect(() => inlineSchema({ $ref: '#/components/schemas/Nothing' }, document)).toThrow('#/components/schemas/Nothing points at nothing in the document');
    expect(() => inlineSchema({ $ref: 'other.yaml#/Widget' }, document)).toThrow('other.yaml#/Widget is not a reference inside the document');
  });
});

describe('the control tools of the shipped document', () => {
  it('are the control registry’s operations in its order, but the left-out ones', async () => {
    const shipped = await readControlDocument(CONTROL_API_DOCUMENT);
    const names = controlTools(shipped).map((tool) => tool.name);
    expect(names).toEqual(Object.keys(CONTROL_OPERATIONS).filter((id) => !(id in LEFT_OUT_OPERATIONS)));
    expect(names).not.toContain('streamEvents');
  });

  it('refuse a registry route the document does not have, naming it', async () => {
    const shipped = await readControlDocument(CONTROL_API_DOCUMENT);
    expect(() => controlTools(shipped, [{ id: 'getHealth', route: 'GET /healthz' }])).toThrow(/getHealth is GET \/healthz/);
    expect(() => controlTools(shipped, [{ id: 'getHealthCheck', route: 'GET /health' }])).toThrow(/getHealthCheck/);
  });

  it('give each tool the document’s required path parameters and the body its operation takes', async () => {
    const tools = new Map(controlTools(await readControlDocument(CONTROL_API_DOCUMENT)).map((tool) => [tool.name, tool]));
    expect(tools.get('advanceClock')).toMatchObject({ method: 'POST', path: '/clock/{publicKey}/advance', pathParameters: ['publicKey'], body: 'required' });
    expect(tools.get('advanceClock')!.inputSchema.required).toEqual(expect.arrayContaining(['publicKey', 'body']));
    expect(tools.get('listPayments')).toMatchObject({ method: 'GET', body: 'none', queryParameters: expect.arrayContaining(['publicKey', 'limit', 'cursor']) });
  });
});
