import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { API_BASE } from '../api/core.js';
import type { SandboxAnswer, SandboxRequest } from '../api/handle.js';
import { answerResult, bodyOf, errorResult } from './tool-results.js';

/** The tool's name: one Payments API request as a merchant. */
export const PAYMENTS_API_REQUEST = 'paymentsApiRequest';

/** The methods a Payments API request may have: the document's three, and those it answers 405 to. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The tool as `tools/list` shows it. */
export const paymentsApiRequestTool: Tool = {
  name: PAYMENTS_API_REQUEST,
  title: 'Send a Payments API request as a merchant',
  description:
    'Sends one Payments API request (openapi/payments-api.yaml) as the merchant of publicKey, with its bearer token: the sandbox exchanges ' +
    'the key pair for it (POST /api/v2/encrypt/keys) on the first request and keeps it. Answers {status, scenario, body}: the HTTP status, ' +
    'the X-Sandbox-Scenario header (the rule that decided the outcome) and the JSON body, whatever the status; a fault that closed the ' +
    'connection answers status 0 and the fault. Test values: card 4000000000000002 is declined (S12); card 5123450000000008 answers S20, ' +
    'then POST /payments/validate with OTP 123456 completes it.',
  inputSchema: {
    type: 'object',
    properties: {
      publicKey: { type: 'string', description: 'The merchant\'s test public key, SBTESTPUBK_ then 8 to 64 letters or digits.' },
      secretKey: {
        type: 'string',
        description: 'The merchant\'s test secret key, SBTESTSECK_...: needed only for a merchant the sandbox does not know yet (one whose keys were never exchanged).',
      },
      method: { type: 'string', enum: [...METHODS] },
      path: {
        type: 'string',
        pattern: '^/',
        description: 'The path as the document names it, below /api/v2 (/payments/initiates), with any query; /v3/... paths are below /api.',
      },
      body: { description: 'The JSON body, for a POST or PUT; the document\'s examples show each operation\'s.' },
    },
    required: ['publicKey', 'method', 'path'],
    additionalProperties: false,
  },
  annotations: { title: 'Send a Payments API request as a merchant', openWorldHint: false },
};

/** What the tool needs of the sandbox. */
export interface PaymentsApiAccess {
  /** serves one request in process: `Sandbox.handle()` */
  handle: (request: SandboxRequest) => Promise<SandboxAnswer>;
  /** the secret key the sandbox's store holds for a merchant it knows (the store keeps key pairs whole: README, "Storage") */
  secretKeyOf: (publicKey: string) => string | undefined;
}

/**
 * The runner of paymentsApiRequest, with its own cache of bearer tokens by
 * public key, each kept with the secret key it was exchanged for (a token
 * never expires: docs/decisions.md#d03-bearer-tokens). A 401 to a kept token
 * (its merchant forgotten since, by a snapshot loaded without it) exchanges
 * the keys once more, which makes the merchant known again, and sends again.
 * @returns a function from the tool's arguments to its result; it rejects only when the sandbox itself fails
 */
export function paymentsApiRequester(access: PaymentsApiAccess): (args: Record<string, unknown>) => Promise<CallToolResult> {
  const tokens = new Map<string, { secretKey: string; token: string }>();
  const exchange = async (publicKey: string, secretKey: string): Promise<string | CallToolResult> => {
    const answer = await access.handle(json('POST', `${API_BASE}/encrypt/keys`, { key: `${secretKey}.${publicKey}` }));
    const body = bodyOf(answer.body) as { data?: Record<string, { encryptedKey?: unknown } | undefined>; message?: unknown } | undefined;
    const token = body?.data?.EncryptedSecKey?.encryptedKey ?? body?.data?.EncrytedSecKey?.encryptedKey;
    if (typeof token === 'string') {
      tokens.set(publicKey, { secretKey, token });
      return token;
    }
    return errorResult(`publicKey, secretKey: the key exchange (POST ${API_BASE}/encrypt/keys) answered ${answer.status}: ${JSON.stringify(body ?? null)}`, {
      status: answer.status,
      scenario: scenarioOf(answer),
      body: body ?? null,
    });
  };
  return async (args) => {
    const refused = refusal(args);
    if (refused) return errorResult(refused);
    const { publicKey, method, path } = args as { publicKey: string; method: string; path: string };
    const secretKey = (args.secretKey as string | undefined) ?? access.secretKeyOf(publicKey);
    if (secretKey === undefined) return errorResult(`secretKey is required: the sandbox does not know the merchant ${publicKey} yet`);
    const target = `${/^\/v3\//.test(path) ? '/api' : API_BASE}${path}`;
    let cached = tokens.get(publicKey);
    for (let attempt = 0; ; attempt++) {
      let token = cached?.secretKey === secretKey ? cached.token : undefined;
      if (token === undefined) {
        const exchanged = await exchange(publicKey, secretKey);
        if (typeof exchanged !== 'string') return exchanged;
        token = exchanged;
      }
      const answer = await access.handle(json(method, target, args.body, token));
      // A kept token of a merchant the sandbox no longer knows: exchange the keys once more.
      if (answer.status === 401 && attempt === 0 && cached !== undefined) {
        tokens.delete(publicKey);
        cached = undefined;
        continue;
      }
      return answerResult({ status: answer.status, scenario: scenarioOf(answer) ?? null, body: bodyOf(answer.body) ?? null, ...(answer.fault ? { fault: answer.fault } : {}) });
    }
  };
}

// What the arguments lack or get wrong, naming the argument; undefined when they are fit to send.
function refusal(args: Record<string, unknown>): string | undefined {
  const known = ['publicKey', 'secretKey', 'method', 'path', 'body'];
  const unknown = Object.keys(args).filter((name) => !known.includes(name));
  if (unknown.length > 0) return `${unknown.join(', ')}: ${PAYMENTS_API_REQUEST} has no such argument (it takes ${known.join(', ')})`;
  if (typeof args.publicKey !== 'string' || args.publicKey === '') return 'publicKey is required: the merchant\'s test public key';
  if (args.secretKey !== undefined && typeof args.secretKey !== 'string') return 'secretKey must be a string';
  if (typeof args.method !== 'string' || !(METHODS as readonly string[]).includes(args.method.toUpperCase())) return `method must be one of ${METHODS.join(', ')}`;
  if (typeof args.path !== 'string' || !args.path.startsWith('/')) return 'path must start with /: the path below /api/v2, as /payments/initiates';
  // Dot segments would be read by no client as a path below the API's base.
  if (/(^|\/)\.\.?(\/|$|\?)/.test(args.path.split('?')[0]! + '/')) return 'path must have no . or .. segments';
  return undefined;
}

// A request in process, with a JSON body when one is given and a bearer token when there is one.
function json(method: string, url: string, body: unknown, token?: string): SandboxRequest {
  const headers: Record<string, string> = { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  if (body === undefined) return { method: method.toUpperCase(), url, headers };
  headers['content-type'] = 'application/json';
  return { method: method.toUpperCase(), url, headers, body: JSON.stringify(body) };
}

const scenarioOf = (answer: SandboxAnswer): string | undefined => {
  const value = answer.headers['x-sandbox-scenario'];
  return Array.isArray(value) ? value[0] : value;
};
