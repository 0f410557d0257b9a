import { readFile } from 'node:fs/promises';
import { OpenAPIV3, type OpenAPIV3_1 } from 'openapi-types';
import { CONTROL_OPERATIONS } from '../control/registry.js';
import type { ControlOperation } from '../control/operation.js';
import { fillSteps, type ControlOperationId } from '../model/operations.js';
import { inlineSchema, pointed } from './schema-refs.js';

/**
 * The control API's operations as MCP tools, derived from the control
 * registry (src/control/registry.ts) and the document it is checked against
 * (openapi/control-api.yaml): an operation added to both is a tool, with no
 * code of its own (README, "Agents").
 */

/**
 * The control operations that are no tools, and why: a tool answers once,
 * with JSON. This is the only list of them; the README's "Agents" names them.
 */
export const LEFT_OUT_OPERATIONS: Readonly<Partial<Record<ControlOperationId, string>>> = {
  streamEvents: 'a stream of server-sent events that never ends by itself',
  getApiDocument: 'a download of a whole OpenAPI document, YAML or JSON',
};

/** One control operation as a tool: what `tools/list` shows of it, and how a call becomes its request. */
export interface ControlTool {
  /** the operation's operationId */
  name: string;
  /** the operation's summary */
  title: string;
  /** the summary, then the description's paragraphs while the whole stays within DESCRIPTION_LIMIT characters, then the method and path */
  description: string;
  /** a JSON Schema object: the path and query parameters as properties, and `body`, the request body */
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; additionalProperties: false };
  /** upper case: GET, POST, PUT, DELETE */
  method: string;
  /** below the control base, with `{name}` for each path parameter: `/clock/{publicKey}/advance` */
  path: string;
  pathParameters: string[];
  queryParameters: string[];
  /** whether the operation takes a JSON body, and must be given one */
  body: 'required' | 'optional' | 'none';
}

/** An operation of the registry as a tool is found in the document: its operationId and its route (`POST /reset`). */
export interface RegisteredRoute {
  id: string;
  route: string;
}

/** The control registry's operations, in its order. */
const REGISTERED: RegisteredRoute[] = Object.entries(CONTROL_OPERATIONS).map(([id, entry]: [string, ControlOperation]) => ({ id, route: entry.route }));

/** The most characters of a tool's description taken from the document's summary and description. */
export const DESCRIPTION_LIMIT = 700;

/**
 * Reads the control API document (a YAML file) as the sandbox serves it:
 * with the enum of steps filled in (src/model/operations.ts, fillSteps).
 * @throws Error when the file cannot be read or parsed
 */
export async function readControlDocument(file: string): Promise<OpenAPIV3_1.Document> {
  const { parse } = await import('yaml');
  const document = parse(await readFile(file, 'utf8')) as OpenAPIV3_1.Document;
  fillSteps(document);
  return document;
}

/**
 * One tool per operation of the control registry, in its order (the
 * document's), but those of LEFT_OUT_OPERATIONS, each described and typed
 * by its operation in the document.
 * @throws Error for a registry route the document does not have, or a reference to nothing
 */
export function controlTools(document: OpenAPIV3_1.Document, operations: ReadonlyArray<RegisteredRoute> = REGISTERED): ControlTool[] {
  const tools: ControlTool[] = [];
  for (const { id, route } of operations) {
    if (id in LEFT_OUT_OPERATIONS) continue;
    const [method, path] = route.split(' ') as [string, string];
    const item = document.paths?.[path];
    const operation = item?.[method.toLowerCase() as OpenAPIV3.HttpMethods];
    if (item === undefined || operation?.operationId !== id) throw new Error(`the control registry's ${id} is ${route}, which the control API document does not have`);
    tools.push(toolOf(document, method, path, operation, [...(item.parameters ?? []), ...(operation.parameters ?? [])]));
  }
  return tools;
}

function toolOf(document: OpenAPIV3_1.Document, method: string, path: string, operation: OpenAPIV3_1.OperationObject, given: Array<OpenAPIV3_1.ReferenceObject | OpenAPIV3_1.ParameterObject>): ControlTool {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  const pathParameters: string[] = [];
  const queryParameters: string[] = [];
  // An operation's parameter replaces the path item's of the same name and place (OpenAPI 3.1, "Operation Object").
  const parameters = new Map<string, OpenAPIV3_1.ParameterObject>();
  for (const each of given) {
    const parameter = resolved<OpenAPIV3_1.ParameterObject>(document, each);
    parameters.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  for (const parameter of parameters.values()) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    (parameter.in === 'path' ? pathParameters : queryParameters).push(parameter.name);
    const schema = inlineSchema(parameter.schema ?? {}, document) as Record<string, unknown>;
    properties[parameter.name] = { ...schema, ...(parameter.description === undefined ? {} : { description: parameter.description.trim() }) };
    if (parameter.required || parameter.in === 'path') required.push(parameter.name);
  }
  let body: ControlTool['body'] = 'none';
  if (operation.requestBody !== undefined) {
    const request = resolved<OpenAPIV3_1.RequestBodyObject>(document, operation.requestBody);
    const json = request.content['application/json'];
    if (json !== undefined) {
      body = request.required ? 'required' : 'optional';
      const schema = inlineSchema(json.schema ?? {}, document) as Record<string, unknown>;
      properties.body = { ...schema, description: request.description?.trim() ?? schema.description ?? 'The JSON request body.' };
      if (request.required) required.push('body');
    }
  }
  return {
    name: operation.operationId!,
    title: operation.summary ?? operation.operationId!,
    description: describe(operation, method, path),
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    method,
    path,
    pathParameters,
    queryParameters,
    body,
  };
}

// The summary, then as many of the description's paragraphs as keep it short, then where the operation is.
function describe(operation: OpenAPIV3_1.OperationObject, method: string, path: string): string {
  let text = (operation.summary ?? '').trim();
  if (text !== '' && !/[.!?]$/.test(text)) text += '.';
  for (const paragraph of (operation.description ?? '').split(/\n\s*\n/)) {
    const plain = paragraph.replace(/\s+/g, ' ').trim();
    if (plain === '') continue;
    if (text.length + 1 + plain.length > DESCRIPTION_LIMIT) break;
    text = text === '' ? plain : `${text} ${plain}`;
  }
  return `${text} (control API: ${method} /__sandbox${path})`;
}

// A parameter or request body, or what its $ref points at.
function resolved<T>(document: OpenAPIV3_1.Document, value: T | OpenAPIV3_1.ReferenceObject): T {
  let at: unknown = value;
  for (let hops = 0; typeof at === 'object' && at !== null && '$ref' in at; hops++) {
    if (hops > 10) throw new Error(`${(value as OpenAPIV3_1.ReferenceObject).$ref} leads round in circles`);
    at = pointed(document, (at as OpenAPIV3_1.ReferenceObject).$ref);
  }
  return at as T;
}
