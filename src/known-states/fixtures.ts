/**
 * Fixtures: a document of real requests (README, "Known states";
 * openapi/control-api.yaml, FixturesDocument), each step run through the
 * same operations as any client's request, so every state a fixture makes is
 * one a client could reach. A later step names an earlier step's answer as
 * `${id.json.path}`, as Stripe's fixtures do (docs/decisions.md#d76-fixtures).
 */

import { API_BASE, CONTROL_BASE } from '../model/bases.js';

/** The key pair a step authenticates as. */
export interface FixtureKeyPair {
  publicKey: string;
  secretKey: string;
}

/** One step: a request to the Payments API (`api`, a path below /api/v2) or to the control API (`control`, below /__sandbox). */
export interface FixtureStep {
  id?: string;
  merchant?: FixtureKeyPair;
  api?: { method: string; path: string; headers?: Record<string, string>; body?: unknown };
  control?: { method: string; path: string; body?: unknown };
  /** absent both: the operation must go through (a status below 400, and `data.payments` not empty: spec, response envelope) */
  expect?: { status?: number; code?: string };
}

/** A fixtures document, version 1, as its schema (openapi/control-api.yaml, FixturesDocument) checked it. */
export interface FixturesDocument {
  version: 1;
  description?: string;
  /** the key pair of every step that names none */
  merchant?: FixtureKeyPair;
  steps: FixtureStep[];
}

/** What one step answered. */
export interface StepOutcome {
  index: number;
  id?: string;
  status: number;
  /** the result code of the answer (`data.code`, or `code`), when it has one */
  code?: string;
}

/** A load that went through, or found its result already there (`alreadyLoaded`: nothing was run to the end, nothing changed). */
export interface FixturesResult {
  loaded: boolean;
  alreadyLoaded?: boolean;
  message?: string;
  steps: StepOutcome[];
  /** the ids the steps bound, in order */
  bound: string[];
}

/** Where a load failed: the step by index (from 0) and id, and the field as a JSON Pointer into the document. */
export interface StepProblem {
  index: number;
  id?: string;
  field?: string;
}

/**
 * A fixtures document that could not be loaded; the state was left (or put
 * back) as it was. `alreadyLoaded` marks the document found loaded already.
 */
export class FixturesError extends Error {
  override name = 'FixturesError';
  constructor(
    message: string,
    readonly step?: StepProblem,
  ) {
    super(message);
  }
}

/** A request as the sandbox serves it in process (Sandbox.handle()). */
export interface StepRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** What the runner needs: a way to send each step, and where the APIs are. */
export interface FixtureRunnerDependencies {
  /** serves one request in process, as Sandbox.handle() does */
  send: (request: StepRequest) => Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer | string }>;
  /** the bearer token every control request needs (`--control-token`), if any */
  controlToken?: string;
  /** does the merchant hold a payment with this reference now? */
  hasPayment: (publicKey: string, paymentReference: string) => boolean;
  /**
   * Does a control step resolve, as the control API routes it, to an
   * operation that replaces the state as a whole (reset, fixtures, snapshots:
   * the control registry's `wholeState`)? Those run one at a time with the
   * load itself: a step waiting for one would wait for ever.
   * @param path below the control base, with its query
   */
  wholeState: (method: string, path: string) => boolean;
}


/** `${id.json.path}`: an id, then dot-separated keys or indexes of its answer. */
interface Reference {
  /** where `${` starts, and just after its `}` */
  start: number;
  end: number;
  name: string;
  /** `.key.0.key`, or '' */
  path: string;
}

// The id of a reference, and one `.key` of its path; sticky, so each reads at one place only.
const REFERENCE_NAME = /[A-Za-z_][A-Za-z0-9_-]{0,63}/y;
const REFERENCE_KEY = /\.[^.}\s]+/y;

/**
 * The `${id.path}` references of a text, left to right, as the pattern
 * `\$\{([A-Za-z_][A-Za-z0-9_-]{0,63})((?:\.[^.}\s]+)*)\}` finds them, in one
 * pass: trying that pattern at each `${` took time quadratic in the text's
 * length when no `}` closed them (`${a.x${a.x…`), freezing the process.
 */
export function referencesIn(text: string): Reference[] {
  const found: Reference[] = [];
  let from = 0;
  for (let start = text.indexOf('${', from); start !== -1; start = text.indexOf('${', from)) {
    REFERENCE_NAME.lastIndex = start + 2;
    const name = REFERENCE_NAME.exec(text)?.[0];
    // A name is at most 64 characters: a failed one costs that much, and its next `${` is tried.
    if (name === undefined) {
      from = start + 1;
      continue;
    }
    let at = start + 2 + name.length;
    const pathStart = at;
    for (REFERENCE_KEY.lastIndex = at; text[at] === '.' && REFERENCE_KEY.exec(text); ) at = REFERENCE_KEY.lastIndex;
    if (text[at] === '}') {
      found.push({ start, end: at + 1, name, path: text.slice(pathStart, at) });
      from = at + 1;
    } else {
      // Every `${` before `at` would read the same keys from its first `.` on and stop here too, so none is tried again.
      from = Math.max(start + 1, at);
    }
  }
  return found;
}

/**
 * Runs the steps in order. Stops at the first that fails.
 * @returns each step's status and code, and the ids bound
 * @throws FixturesError naming the step (index, id, field): an expect not met,
 *   an unknown id or path in `${…}`, a paymentReference made twice by the document;
 *   `alreadyLoaded` is reported by the caller from `collision`
 */
export async function runSteps(document: FixturesDocument, deps: FixtureRunnerDependencies): Promise<FixturesResult> {
  const answers = new Map<string, unknown>();
  const tokens = new Map<string, string>();
  // Each paymentReference a step made, by merchant: a later step refused over it collides with that step.
  const made = new Map<string, number>();
  const steps: StepOutcome[] = [];
  for (const [index, raw] of document.steps.entries()) {
    const step = resolveStep(raw, index, answers);
    // Those run one at a time with the load itself: a step waiting for one would wait for ever (docs/decisions.md#d76-fixtures).
    if (step.control && deps.wholeState(step.control.method, step.control.path)) {
      throw new FixturesError(`step ${index}: a fixtures step cannot load fixtures or a snapshot, or reset (${step.control.path}): load them before or after this document`, { index, id: step.id, field: `/steps/${index}/control/path` });
    }
    const merchant = step.merchant ?? document.merchant;
    const request = step.api ?? step.control!;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    // Exchanged before the merchant's first step of either kind: the control API stores a notification URL or a clock
    // for a merchant the sandbox knows only (docs/decisions.md#d42-webhook-urls-and-clocks-stored).
    const token = merchant ? await tokenFor(merchant, tokens, deps, index, step.id) : undefined;
    if (step.api) {
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      Object.assign(headers, lowerCased(step.api.headers ?? {}));
    } else if (deps.controlToken) {
      headers.authorization = `Bearer ${deps.controlToken}`;
    }
    const url = `${step.api ? API_BASE : CONTROL_BASE}${request.path}`;
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const references = referencesOf(request.body, merchant?.publicKey);
    const before = references.filter((key) => deps.hasPayment(key.publicKey, key.paymentReference)).map(keyOf);
    const answer = await deps.send({ method: request.method, url, headers, body });
    const parsed = parseBody(answer.body);
    const code = codeOf(parsed);
    const outcome: StepOutcome = { index, ...(step.id === undefined ? {} : { id: step.id }), status: answer.status, ...(code === undefined ? {} : { code }) };
    const where = stepName(index, step.id);
    const expected = step.expect ?? {};
    // With no expectation, a step must go through: the spec's envelope says a failed operation by an empty `data.payments`.
    const wentThrough = answer.status > 0 && answer.status < 400 && !failedEnvelope(parsed);
    const statusMet = expected.status === undefined ? expected.code !== undefined || wentThrough : answer.status === expected.status;
    const codeMet = expected.code === undefined || code === expected.code;
    // The catalogue's rules for a reference used before are all named so (scenarios/payments.yaml).
    const duplicate = /^duplicate-reference/.test(String(answer.headers['x-sandbox-scenario'] ?? ''));
    if ((!statusMet || !codeMet) && duplicate) {
      // A refusal over a paymentReference: made earlier by this document, or held before it was loaded.
      for (const key of references) {
        const earlier = made.get(keyOf(key));
        if (earlier !== undefined) {
          throw new FixturesError(`${where} uses paymentReference ${key.paymentReference} of ${key.publicKey}, which step ${earlier} made already: a fixtures document makes each reference once`, { index, id: step.id, field: `/steps/${index}` });
        }
      }
      const held = before[0];
      if (held !== undefined) throw new AlreadyHeld(index, step.id, held);
    }
    if (!statusMet || !codeMet) {
      const wanted = !statusMet ? (expected.status === undefined ? 'the operation to go through (a status below 400, and data.payments not empty)' : `status ${expected.status}`) : `code ${expected.code}`;
      const got = `status ${answer.status}${code === undefined ? '' : ` and code ${code}`}`;
      // The Payments API takes unknown fields silently: a misspelt one shows only as an answer that differs, so the step points at it.
      // Loaded only for a step that failed: a load that passes needs none of it.
      const unknown = step.api ? await (await import('./unknown-fields.js')).unknownBodyFields(deps.send, step.api.method, step.api.path, step.api.body) : [];
      const typo = unknown.find((field) => field.suggestion !== undefined) ?? unknown[0];
      const field = typo ? `/steps/${index}/api/body/${pointerToken(typo.field)}` : !statusMet ? `/steps/${index}/expect/status` : `/steps/${index}/expect/code`;
      const hint = unknown.length === 0 ? '' : `; its body has ${unknown.map((found) => `'${found.field}'${found.suggestion === undefined ? '' : ` (did you mean '${found.suggestion}'?)`}`).join(', ')}, which ${step.api!.method} ${step.api!.path.split(/[?#]/)[0]} does not take`;
      throw new FixturesError(`${where}: expected ${wanted}, the answer has ${got}${messageOf(parsed)}${hint}`, { index, id: step.id, field });
    }
    for (const key of references) {
      if (!before.includes(keyOf(key)) && deps.hasPayment(key.publicKey, key.paymentReference)) made.set(keyOf(key), index);
    }
    if (step.id !== undefined) answers.set(step.id, parsed);
    steps.push(outcome);
  }
  return { loaded: true, steps, bound: [...answers.keys()] };
}

/**
 * A step refused over a payment the sandbox held before the load: the
 * document, or one that makes the same references, was loaded already.
 */
export class AlreadyHeld extends FixturesError {
  override name = 'AlreadyHeld';
  constructor(index: number, id: string | undefined, held: string) {
    const [publicKey, paymentReference] = JSON.parse(held) as [string, string];
    super(`already loaded: ${stepName(index, id)} makes paymentReference ${paymentReference} of ${publicKey}, which the sandbox held before this load; nothing was changed`, { index, id });
  }
}

/** The most characters a fixtures document may hold once its YAML aliases are expanded: the 16 MB a fixtures body is read up to (docs/known-states.md, "Bounds"). */
export const FIXTURES_EXPANDED_LIMIT = 16 * 1024 * 1024;

/**
 * Reads a fixtures document from a file's text: JSON, or YAML (a superset),
 * at most 100 aliases and {@link FIXTURES_EXPANDED_LIMIT} characters of keys
 * and values once they are expanded: one alias of a large value, repeated,
 * otherwise outgrows what a string can hold when the document is written out.
 * @throws FixturesError when it is neither, or larger expanded
 */
export async function parseFixturesText(text: string): Promise<unknown> {
  const { parse } = await import('yaml');
  let parsed: unknown;
  try {
    parsed = parse(text, { maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw new FixturesError(`not JSON or YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (expandedSizeOver(parsed, FIXTURES_EXPANDED_LIMIT)) {
    throw new FixturesError(`the document expands to more than ${FIXTURES_EXPANDED_LIMIT / 1024 / 1024} MB of keys and values (its YAML aliases repeat a large value): write each value once, or split the document`);
  }
  return parsed;
}

// Counts each key and value as often as aliases repeat it, one character at least for each, and stops past the limit: the work is bounded by it.
function expandedSizeOver(root: unknown, limit: number): boolean {
  let size = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    size += typeof value === 'string' ? value.length + 1 : 1;
    if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        size += key.length;
        pending.push(inner);
      }
    }
    if (size > limit) return true;
  }
  return false;
}

function stepName(index: number, id: string | undefined): string {
  return id === undefined ? `step ${index}` : `step ${index} (${id})`;
}

// Each merchant's key pair is exchanged once a load, through the API's own key exchange.
async function tokenFor(merchant: FixtureKeyPair, tokens: Map<string, string>, deps: FixtureRunnerDependencies, index: number, id: string | undefined): Promise<string> {
  const known = tokens.get(merchant.publicKey);
  if (known !== undefined) return known;
  const answer = await deps.send({
    method: 'POST', url: `${API_BASE}/encrypt/keys`, headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ key: `${merchant.secretKey}.${merchant.publicKey}` }),
  });
  const parsed = parseBody(answer.body) as { data?: { EncryptedSecKey?: { encryptedKey?: unknown } } } | undefined;
  const token = parsed?.data?.EncryptedSecKey?.encryptedKey;
  if (answer.status !== 200 || typeof token !== 'string') {
    throw new FixturesError(`${stepName(index, id)}: the key exchange for ${merchant.publicKey} answered ${answer.status}${messageOf(parsed)}`, { index, id, field: `/steps/${index}/merchant` });
  }
  tokens.set(merchant.publicKey, token);
  return token;
}

// Replaces every `${id.path}` of a step (its merchant, request and expect) with the answers bound so far.
function resolveStep(step: FixtureStep, index: number, answers: Map<string, unknown>): FixtureStep {
  const resolve = (value: unknown, at: string): unknown => {
    if (typeof value === 'string') return resolveText(value, at);
    if (Array.isArray(value)) return value.map((item, i) => resolve(item, `${at}/${i}`));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner, `${at}/${pointerToken(key)}`)]));
    }
    return value;
  };
  const resolveText = (text: string, at: string): unknown => {
    const references = referencesIn(text);
    if (references.length === 0) return text;
    const [first] = references;
    // A value that is one reference keeps the referred value's type (a number stays a number).
    if (references.length === 1 && first!.start === 0 && first!.end === text.length) return lookUp(first!.name, first!.path, at);
    let resolved = '';
    let from = 0;
    for (const { start, end, name, path } of references) {
      const found = lookUp(name, path, at);
      resolved += text.slice(from, start) + (typeof found === 'string' ? found : JSON.stringify(found));
      from = end;
    }
    return resolved + text.slice(from);
  };
  const lookUp = (name: string, path: string, at: string): unknown => {
    if (!answers.has(name)) throw new FixturesError(`step ${index}: \${${name}${path}} names no earlier step (ids so far: ${[...answers.keys()].join(', ') || 'none'})`, { index, id: step.id, field: at });
    let value = answers.get(name);
    for (const key of path.split('.').slice(1)) {
      value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
      if (value === undefined) throw new FixturesError(`step ${index}: the answer of step ${name} has nothing at ${path.slice(1)}`, { index, id: step.id, field: at });
    }
    return value;
  };
  return resolve(step, `/steps/${index}`) as FixtureStep;
}

interface ReferenceKey {
  publicKey: string;
  paymentReference: string;
}

// The paymentReferences a body names (top level and `transaction`), with the merchant they are of.
function referencesOf(body: unknown, stepKey: string | undefined): ReferenceKey[] {
  if (typeof body !== 'object' || body === null) return [];
  const fields = body as Record<string, unknown>;
  const publicKey = typeof fields.publicKey === 'string' ? fields.publicKey : stepKey;
  const reference = fields.paymentReference;
  return publicKey !== undefined && typeof reference === 'string' ? [{ publicKey, paymentReference: reference }] : [];
}

function keyOf(key: ReferenceKey): string {
  return JSON.stringify([key.publicKey, key.paymentReference]);
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function parseBody(body: Buffer | string): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// The result code of an envelope (`data.code`) or of an error body (`code`).
function codeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { data, code } = body as { data?: { code?: unknown }; code?: unknown };
  const found = typeof data === 'object' && data !== null ? data.code : code;
  return typeof found === 'string' ? found : undefined;
}

// The spec's response envelope: `data.payments` is an empty object when the operation failed.
function failedEnvelope(body: unknown): boolean {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  const payments = typeof data === 'object' && data !== null ? (data as { payments?: unknown }).payments : undefined;
  return typeof payments === 'object' && payments !== null && !Array.isArray(payments) && Object.keys(payments).length === 0;
}

function messageOf(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const { message, data } = body as { message?: unknown; data?: { message?: unknown } };
  const text = typeof message === 'string' ? message : typeof data === 'object' && data !== null && typeof data.message === 'string' ? data.message : undefined;
  return text === undefined ? '' : ` ("${text.slice(0, 300)}")`;
}

function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
