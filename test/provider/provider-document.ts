import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The provider's public OpenAPI description, as far as the replay needs it:
 * the operations it replays, the request examples they carry and the 2xx
 * response examples paired with them. They are test data of the repository
 * (fixtures/provider-examples.json, whose README names the source and how
 * they were taken out), so that a clone tests on its own; $refs are already
 * followed there, values are the provider's unchanged.
 */

/** Where the provider's examples are kept: `fixtures/provider-examples.json` beside this file. */
export const PROVIDER_EXAMPLES = fileURLToPath(new URL('./fixtures/provider-examples.json', import.meta.url));

/** One operation of the provider's description, with the method and literal path it is published under. */
export interface ProviderOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT';
  /** the path as the provider has it, literal values included (`/payments/query/STG...`) */
  path: string;
}

/** A request example: its name in the provider's description and the body it sends (none for an operation without a body). */
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

// The fixture's shape. A response example keeps its key under `examples` and,
// when it is a $ref, the name of the component it refers to: the replay may
// pair a request with either.
interface StoredOperation {
  method: ProviderOperation['method'];
  path: string;
  /** absent when the operation has no request body */
  requestExamples?: RequestExample[];
  response: { status: number; examples: Array<{ name: string; component?: string; body: unknown }> };
}

interface StoredExamples {
  operations: Record<string, StoredOperation>;
  componentExamples: Record<string, unknown>;
}

/** The provider's examples, read from the repository's fixture. */
export class ProviderDocument {
  private constructor(private readonly stored: StoredExamples) {}

  /** Reads the examples kept at `file`. */
  static load(file: string = PROVIDER_EXAMPLES): ProviderDocument {
    return new ProviderDocument(JSON.parse(readFileSync(file, 'utf8')) as StoredExamples);
  }

  /**
   * The operation of that operationId.
   * @throws Error when the fixture has none, so a renamed or missing operation is noticed rather than skipped.
   */
  operation(operationId: string): ProviderOperation {
    const stored = this.stored.operations[operationId];
    if (!stored) throw new Error(`The provider's examples have no operation ${operationId} (test/provider/fixtures/README.md says how to add one)`);
    return { operationId, method: stored.method, path: stored.path };
  }

  /**
   * The request examples of an operation, in the provider's order. An
   * operation without a body has one example with no body.
   * @throws Error when an operation's body is kept without any example of it.
   */
  requestExamples(operation: ProviderOperation): RequestExample[] {
    const examples = this.stored.operations[operation.operationId]!.requestExamples;
    if (examples === undefined) return [{ name: operation.operationId }];
    if (examples.length === 0) throw new Error(`${operation.operationId}: the provider documents a request body but no example of it`);
    return examples;
  }

  /**
   * The example of the operation's 2xx response: the one called `name` (its
   * key under `examples`, or the name of the component it refers to), or the
   * only one there is.
   * @throws Error when there is no such example, or several and no name.
   */
  responseExample(operation: ProviderOperation, name?: string): ResponseExample {
    const { status, examples } = this.stored.operations[operation.operationId]!.response;
    if (name === undefined) {
      if (examples.length !== 1) throw new Error(`${operation.operationId}: ${examples.length} examples of its ${status} answer, say which one`);
      return { name: examples[0]!.name, status, body: examples[0]!.body };
    }
    const found = examples.find((example) => example.name === name || example.component === name);
    if (!found) throw new Error(`${operation.operationId}: no example ${name} of its ${status} answer (it has ${examples.map((example) => example.name).join(', ')})`);
    return { name, status, body: found.body };
  }

  /** The value of a named example of the provider's `components/examples`. */
  componentExample(name: string): any {
    const example = this.stored.componentExamples[name];
    if (example === undefined) throw new Error(`The provider's examples have no component example ${name}`);
    return example;
  }
}
