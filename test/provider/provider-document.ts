import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/**
 * Reading the provider's public OpenAPI 3.0 description: its operations, the
 * request examples they carry and the 2xx response example of each. The file
 * is the provider's as published, $refs and all, so every lookup goes through
 * `resolve`.
 */

/** Where the provider's description lives: `../shared/provider/external-api.yml` from the repository root. */
export const PROVIDER_DOCUMENT = fileURLToPath(new URL('../../../shared/provider/external-api.yml', import.meta.url));

/** One operation of the provider's description, with the method and literal path it is published under. */
export interface ProviderOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT';
  /** the path as the file has it, literal values included (`/payments/query/STG...`) */
  path: string;
  node: any;
}

/** A request example: its name in the file and the body it sends (none for an operation without a body). */
export interface RequestExample {
  name: string;
  body?: Record<string, unknown>;
}

/** A response example: the 2xx status the provider documents it under and its body. */
export interface ResponseExample {
  name: string;
  status: number;
  body: any;
}

/** The provider's description, parsed, with $ref resolution over it. */
export class ProviderDocument {
  private constructor(readonly root: any) {}

  /**
   * Reads and parses the description at `file`.
   * @throws Error naming the path when the file is not there, since every CI checkout is expected to carry it.
   */
  static load(file: string = PROVIDER_DOCUMENT): ProviderDocument {
    if (!existsSync(file)) {
      throw new Error(`The provider's OpenAPI description is missing: expected it at ${file} (../shared/provider/external-api.yml from the repository root)`);
    }
    return new ProviderDocument(parse(readFileSync(file, 'utf8')));
  }

  /** `node` with every $ref it starts with followed, to what the pointer names. */
  resolve(node: any): any {
    const seen = new Set<string>();
    while (node?.$ref) {
      const ref = String(node.$ref);
      // A loop of $refs would otherwise hang the whole run.
      if (seen.has(ref)) throw new Error(`$ref loop at ${ref}`);
      seen.add(ref);
      node = this.pointer(ref);
    }
    return node;
  }

  /**
   * The operation of that operationId.
   * @throws Error when the file has none, so a renamed operation is noticed rather than skipped.
   */
  operation(operationId: string): ProviderOperation {
    for (const [path, item] of Object.entries<any>(this.root.paths ?? {})) {
      for (const method of ['get', 'post', 'put'] as const) {
        if (item?.[method]?.operationId === operationId) {
          return { operationId, method: method.toUpperCase() as ProviderOperation['method'], path, node: item[method] };
        }
      }
    }
    throw new Error(`The provider's description has no operation ${operationId}`);
  }

  /**
   * The request examples of an operation: its `examples` by name, or else its
   * schema's `example` (named after the schema). An operation without a body
   * has one example with no body.
   * @throws Error when a body is documented but no example of it is.
   */
  requestExamples(operation: ProviderOperation): RequestExample[] {
    if (!operation.node.requestBody) return [{ name: operation.operationId }];
    const media = this.resolve(operation.node.requestBody).content?.['application/json'];
    const named = Object.entries<any>(media?.examples ?? {}).map(([name, example]) => ({ name, body: this.exampleValue(example) }));
    if (named.length > 0) return named;
    const schemaRef: string | undefined = media?.schema?.$ref;
    const example = this.resolve(media?.schema)?.example;
    if (example === undefined) throw new Error(`${operation.operationId}: the provider documents a request body but no example of it`);
    return [{ name: schemaRef ? lastSegment(schemaRef) : 'example', body: example }];
  }

  /**
   * The example of the operation's 2xx response: the one called `name` (its
   * key under `examples`, or the name of the component it refers to), or the
   * only one there is (the schema's `example` when there are no `examples`).
   * @throws Error when there is no such example, or several and no name.
   */
  responseExample(operation: ProviderOperation, name?: string): ResponseExample {
    const entry = Object.entries<any>(operation.node.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));
    if (!entry) throw new Error(`${operation.operationId}: the provider documents no 2xx response`);
    const status = Number(entry[0]);
    const media = this.resolve(entry[1]).content?.['application/json'];
    const examples = Object.entries<any>(media?.examples ?? {});
    if (examples.length === 0) {
      const schemaRef: string | undefined = media?.schema?.$ref;
      const body = this.resolve(media?.schema)?.example;
      if (body === undefined) throw new Error(`${operation.operationId}: its ${status} answer has no example`);
      return { name: schemaRef ? lastSegment(schemaRef) : 'example', status, body };
    }
    if (name === undefined) {
      if (examples.length > 1) throw new Error(`${operation.operationId}: ${examples.length} examples of its ${status} answer, say which one`);
      const [key, example] = examples[0]!;
      return { name: key, status, body: this.exampleValue(example) };
    }
    const found = examples.find(([key, example]) => key === name || (example?.$ref && lastSegment(example.$ref) === name));
    if (!found) throw new Error(`${operation.operationId}: no example ${name} of its ${status} answer (it has ${examples.map(([key]) => key).join(', ')})`);
    return { name, status, body: this.exampleValue(found[1]) };
  }

  /** The value of a named example of `components/examples`. */
  componentExample(name: string): any {
    const example = this.root.components?.examples?.[name];
    if (!example) throw new Error(`The provider's description has no example ${name}`);
    return this.exampleValue(example);
  }

  // An Example Object carries `value`; some of the file's examples point at a
  // schema instead, whose `example` is then the value meant.
  private exampleValue(node: any): any {
    const resolved = this.resolve(node);
    return resolved && 'value' in resolved ? resolved.value : resolved?.example;
  }

  private pointer(ref: string): any {
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are read, not ${ref}`);
    return ref
      .slice(2)
      .split('/')
      .reduce((node: any, part) => {
        const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
        if (node?.[key] === undefined) throw new Error(`$ref ${ref} points at nothing`);
        return node[key];
      }, this.root);
  }
}

const lastSegment = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);
