import fc from 'fast-check';
import { propertyNames, type DocumentedOperation } from './payments-document.js';
import { PROTOTYPE_NAMES, type FuzzContext, type Mutation, type RequestParts } from './fuzz-context.js';
import { JsonEntries, RawJson, withKey } from './json-text.js';
import { propertySchema } from './valid-requests.js';

/**
 * Almost valid requests: a valid one with one thing wrong. A field missing,
 * null, of another type, huge, in odd Unicode, valued or named `__proto__`
 * and friends, given twice; a path parameter of the same kinds; or
 * credentials a stranger tries.
 */

/** The mutations that apply to an operation: credentials always, body and path ones where it has those. */
export function mutationsOf(operation: DocumentedOperation, context: FuzzContext): fc.Arbitrary<Mutation> {
  const mutations: Array<fc.Arbitrary<Mutation>> = [authorizationMutation(context)];
  // A body that is a JSON array (the bulk token charge) has no fields of its own: its mutations are its items' and the credentials'.
  if (operation.body && propertyNames(operation.body).length > 0) mutations.push(fieldMutation(operation, context), bodyKeyMutation(operation, context));
  if (operation.pathParameters.length > 0) mutations.push(pathMutation(operation));
  return fc.oneof(...mutations);
}

/** Values of a type the field does not have, or at the edges of the one it has. */
function wrongValue(): fc.Arbitrary<{ what: string; value: unknown }> {
  return fc.oneof(
    fc.constant({ what: 'null', value: null }),
    fc.constant({ what: 'empty string', value: '' }),
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant([]), fc.constant({}), fc.array(fc.string(), { maxLength: 3 })).map((value) => ({
      what: `wrong type ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}`,
      value,
    })),
    fc
      .constantFrom('1e999', '-0', '123456789012345678901234567890', '1.5e2', '0.1', '-150.00', '1E2', '150.000', '0', '9007199254740993')
      .map((text) => ({ what: 'number where a string goes', value: new RawJson(text) })),
    fc.constantFrom(10_000, 200_000).map((length) => ({ what: `huge string (${length})`, value: '9'.repeat(length) })),
    fc
      .oneof(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
        fc.constantFrom('１５００.００', '١٥٠٠', '\u202e150.00', '150\u0000', '𝟙𝟝𝟘', 'é', '\ud800', '\udfff\ud800', 'Ω≈ç√∫', '\ufeff150.00'),
      )
      .map((value) => ({ what: 'odd unicode', value })),
    fc.constantFrom(...PROTOTYPE_NAMES).map((value) => ({ what: 'prototype name as value', value })),
    fc
      .constantFrom<unknown>({ toString: 'x' }, new JsonEntries([['__proto__', { polluted: true }]]), { valueOf: 1 }, { constructor: { prototype: { polluted: true } } })
      .map((value) => ({ what: 'object with prototype keys as value', value })),
  );
}

function fieldMutation(operation: DocumentedOperation, context: FuzzContext): fc.Arbitrary<{ what: string; change: (parts: RequestParts) => RequestParts }> {
  const schema = operation.body!;
  const names = propertyNames(schema);
  // Fields of the items of an array property (order lines) are fields too.
  const nested = names.flatMap((name) => {
    const property = propertySchema(schema, name);
    return property?.type === 'array' && property.items?.properties ? Object.keys(property.items.properties).map((field) => [name, field] as const) : [];
  });
  const target = fc.oneof(
    fc.constantFrom(...names).map((name) => ({ name, within: undefined as string | undefined })),
    ...(nested.length > 0 ? [fc.constantFrom(...nested).map(([within, name]) => ({ name, within }))] : []),
  );
  const change = fc.oneof(
    fc.constant({ what: 'missing', value: undefined as unknown }),
    wrongValue(),
    fc.constant({ what: "the stranger's publicKey", value: context.stranger.publicKey }),
  );
  return fc.tuple(target, change).map(([{ name, within }, { what, value }]) => ({
    what: `${within ? `${within}[].` : ''}${name}: ${what}`,
    change: (parts) => {
      const body: Record<string, unknown> = structuredClone(parts.body ?? {});
      const holder = within === undefined ? body : firstItem(body, within);
      if (holder) {
        if (value === undefined) delete holder[name];
        else holder[name] = value;
      }
      return { ...parts, body };
    },
  }));
}

function firstItem(body: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const list = body[name];
  if (!Array.isArray(list) || typeof list[0] !== 'object' || list[0] === null) return undefined;
  return list[0] as Record<string, unknown>;
}

function bodyKeyMutation(operation: DocumentedOperation, context: FuzzContext): fc.Arbitrary<{ what: string; change: (parts: RequestParts) => RequestParts }> {
  const names = propertyNames(operation.body);
  const value = fc.constantFrom<unknown>({}, { publicKey: context.stranger.publicKey, isAdmin: true }, 'x', null, 1, [], { status: 'SUCCESSFUL' });
  return fc.oneof(
    fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES), value, fc.boolean()).map(([key, given, nestedInItem]) => ({
      what: `prototype name as key${nestedInItem ? ' (in an item)' : ''}: ${key}`,
      change: (parts: RequestParts) => {
        let body = parts.body ?? {};
        const listName = names.find((name) => Array.isArray(body[name]));
        if (nestedInItem && listName) {
          const list = [...(body[listName] as unknown[])];
          list[0] = withKey((list[0] ?? {}) as Record<string, unknown>, key, given);
          body = { ...body, [listName]: list };
        } else {
          body = withKey(body, key, given);
        }
        return { ...parts, body };
      },
    })),
    fc.tuple(fc.constantFrom(...names), wrongValue()).map(([name, wrong]) => ({
      what: `duplicate key ${name}`,
      change: (parts: RequestParts) => {
        const entries = Object.entries(parts.body ?? {}) as Array<[string, unknown]>;
        return { ...parts, body: new JsonEntries([...entries, [name, wrong.value]]) as unknown as Record<string, unknown> };
      },
    })),
  );
}

function pathMutation(operation: DocumentedOperation): fc.Arbitrary<{ what: string; change: (parts: RequestParts) => RequestParts }> {
  const value = fc.oneof(
    fc.constantFrom(...PROTOTYPE_NAMES).map((text) => ({ what: 'prototype name', text: encodeURIComponent(text) })),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map((text) => ({ what: 'odd unicode', text: encodeURIComponent(text.replace(/[\ud800-\udfff]/g, 'x')) })),
    fc.constantFrom('%', '%E0%A4%A', '%00', '..', '%2e%2e%2f', '%2F', 'a%20b', '9'.repeat(4000)).map((text) => ({ what: 'odd encoding', text })),
  );
  return fc.tuple(fc.constantFrom(...operation.pathParameters), value).map(([parameter, { what, text }]) => ({
    what: `path ${parameter.name}: ${what}`,
    change: (parts) => {
      const template = operation.path.split('/');
      const at = template.indexOf(`{${parameter.name}}`);
      const path = parts.path.split('/');
      if (at >= 0) path[at] = text;
      return { ...parts, path: path.join('/') };
    },
  }));
}

/** Authorization values a stranger tries: tokens and Basic pairs that name inherited properties, odd base64, live keys. */
export function oddAuthorization(context: FuzzContext): fc.Arbitrary<{ what: string; value: string | undefined }> {
  const { merchant } = context;
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  const named = (what: string, values: string[]) => fc.constantFrom(...values).map((value) => ({ what, value }));
  const fresh = fc.stringMatching(/^[a-z0-9]{8,12}$/);
  return fc.oneof(
    fc.constant({ what: 'no Authorization', value: undefined }),
    named('bearer token of an inherited name', PROTOTYPE_NAMES.map((name) => `Bearer SBTOKEN_${b64url(name)}.x`)),
    named('bearer token of an inherited name', ['Bearer SBTOKEN_X19wcm90b19f.x']),
    named('basic pair of an inherited name', [
      ...PROTOTYPE_NAMES.map((name) => `Basic ${b64(`${name}:${merchant.secretKey}`)}`),
      ...PROTOTYPE_NAMES.map((name) => `Basic ${b64(`${merchant.publicKey}:${name}`)}`),
    ]),
    named('odd basic', ['Basic', 'Basic ', 'Basic !!!!', 'Basic ====', 'Basic YQ', 'Basic Og==', `Basic ${b64('é:ü')}`, `Basic ${b64(merchant.publicKey)}`, `Basic ${'A'.repeat(6000)}`]),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ what: 'basic of random bytes', value: `Basic ${Buffer.from(bytes).toString('base64')}` })),
    fc.tuple(fresh, fresh).map(([pub, sec]) => ({ what: 'basic pair never seen', value: `Basic ${b64(`SBTESTPUBK_${pub}:SBTESTSECK_${sec}`)}` })),
    named('odd bearer', [
      'Bearer',
      'Bearer ',
      `bearer ${merchant.token}`,
      `BEARER ${merchant.token}`,
      `Bearer  ${merchant.token}`,
      `Bearer ${merchant.token} extra`,
      `Bearer\t${merchant.token}`,
      `Bearer ${merchant.token}.`,
      `Bearer ${merchant.token.slice(0, -1)}`,
      'Bearer SBTOKEN_.',
      'Bearer SBTOKEN_..',
      `Bearer SBTOKEN_${b64url('SBPUBK_aaaaaaaa')}.x`,
      `Bearer SBTOKEN_${b64url(context.stranger.publicKey)}.x`,
      `Bearer ${'A'.repeat(8000)}`,
      merchant.token,
      'Digest username="x"',
    ]),
    fc.string({ maxLength: 40 }).map((text) => ({ what: 'bearer of random text', value: `Bearer ${text.replace(/[\r\n]/g, '')}` })),
  );
}

function authorizationMutation(context: FuzzContext): fc.Arbitrary<{ what: string; change: (parts: RequestParts) => RequestParts }> {
  return oddAuthorization(context).map(({ what, value }) => ({ what: `Authorization: ${what}`, change: (parts) => ({ ...parts, authorization: value }) }));
}
