import { inputError, type ApiError } from '../errors.js';
import { operationId, type HttpOperation } from '../validation/operations.js';

/**
 * What openapi/control-api.yaml says of a request beyond what its schemas
 * check: query parameters are the documented ones only, and the rules its
 * descriptions state. A control request that breaks one is refused with 400
 * INPUT naming the field, before it changes anything.
 */

/**
 * The refusal of a query parameter the operation does not document, naming
 * it and the ones it takes: a mis-cased `?publickey=` would otherwise be
 * ignored, and `POST /reset?publickey=X` would reset every merchant.
 * @returns undefined when every parameter is documented
 */
export function unknownQueryRefusal(operation: HttpOperation, query: Record<string, unknown>): ApiError | undefined {
  const known = (operation.request?.query ?? []).map((parameter) => parameter.name);
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length === 0) return undefined;
  const takes = known.length === 0 ? 'takes no query parameter' : `takes ${known.join(', ')}`;
  // Names and their number both come from the client: a few of each, cut, say enough.
  const names = unknown.slice(0, 5).map((name) => name.slice(0, 100)).join(', ') + (unknown.length > 5 ? ` and ${unknown.length - 5} more` : '');
  return inputError(`Unknown query parameter${unknown.length > 1 ? 's' : ''} ${names}: ${operation.method.toUpperCase()} /__sandbox${operation.path} ${takes}`);
}

type Rule = (body: Record<string, unknown>) => string | undefined;

// Each rule cites the description that states it.
const RULES: Record<string, Rule[]> = {
  // Delay: "minMs must not exceed maxMs".
  createOverride: [
    (body) => {
      const delay = body.delay as { minMs?: number; maxMs?: number } | undefined;
      if (delay?.minMs === undefined || delay.maxMs === undefined || delay.minMs <= delay.maxMs) return undefined;
      return `delay.minMs must not exceed delay.maxMs (${delay.minMs} > ${delay.maxMs})`;
    },
  ],
};

/**
 * The refusal, after schema validation, of a body that breaks a rule the
 * document states in words (`delay.minMs` ≤ `delay.maxMs`): 400 INPUT naming the field.
 * @returns undefined when the body keeps every rule
 */
export function brokenRulesRefusal(operation: HttpOperation, body: unknown): ApiError | undefined {
  const rules = RULES[operationId(operation)] ?? [];
  const given = (body ?? {}) as Record<string, unknown>;
  const broken = rules.map((rule) => rule(given)).filter((sentence): sentence is string => sentence !== undefined);
  return broken.length === 0 ? undefined : inputError(broken.join('; '));
}
