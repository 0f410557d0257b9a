import { ApiError } from '../errors.js';
import { API_BASE } from '../model/bases.js';
import { escapeControls } from '../redaction/controls.js';
import type { Store } from '../store/store.js';

/**
 * The refusal of a control request that would store something for a key
 * that is no merchant: a merchant is a key pair the sandbox knows, made by
 * the key exchange, a snapshot or fixtures (a reset releases it but keeps it
 * known). Without this, any made-up key (`__proto__`, 128 characters, a bidi
 * override) got a notification URL or a clock of its own, past the bound on
 * merchants (docs/decisions.md#d42-webhook-urls-and-clocks-stored).
 * @returns 404 NOT_FOUND in the control API's shape saying how the key
 *   becomes a merchant; undefined when the store knows the merchant
 */
export function unknownMerchantRefusal(store: Pick<Store, 'merchant'>, publicKey: string): ApiError | undefined {
  if (store.merchant(publicKey) !== undefined) return undefined;
  // The key is the client's own text: shown escaped, so it cannot reorder or break the line a terminal prints.
  const shown = escapeControls(publicKey.slice(0, 128));
  return new ApiError(404, {
    message: `${shown} is no merchant of this sandbox: exchange its keys first (POST ${API_BASE}/encrypt/keys), or load it with a snapshot or fixtures`,
    error: 'NOT_FOUND',
  });
}
