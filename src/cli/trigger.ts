/**
 * `payments-sandbox trigger <eventType> --reference <paymentReference>`:
 * asks a running sandbox to send a payment's event now, as `stripe trigger`
 * does (README, "Notifications"), through the control API: the payment's
 * merchant is found with GET /__sandbox/payments/{paymentReference} unless
 * `--public-key` names it, then POST /__sandbox/webhooks/{publicKey}/trigger.
 * Loads nothing of the server.
 */
import { controlRequest } from './control-request.js';

/** What the trigger sub-command was told. */
export interface TriggerRequest {
  eventType: string;
  paymentReference: string;
  publicKey?: string;
  /** the sandbox's origin, e.g. http://127.0.0.1:4010 */
  origin: string;
  controlToken?: string;
}

/**
 * Sends the event.
 * @returns the lines to print: one per delivery made (its id, event and where it goes)
 * @throws Error with the control API's message when the sandbox refused, or cannot be reached
 */
export async function trigger(request: TriggerRequest): Promise<string[]> {
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await controlRequest(request, method, path, body === undefined ? undefined : { json: body }, 10_000);
    return (await response.json().catch(() => ({}))) as Record<string, unknown>;
  };
  const reference = encodeURIComponent(request.paymentReference);
  const publicKey = request.publicKey ?? String((await call('GET', `/payments/${reference}`)).publicKey);
  const made = await call('POST', `/webhooks/${encodeURIComponent(publicKey)}/trigger`, { eventType: request.eventType, paymentReference: request.paymentReference });
  const deliveries = made.deliveries as Array<{ id: string; state: string; event: { eventType: string; eventId: string } }>;
  return deliveries.map((delivery) => `${delivery.id} ${delivery.event.eventType} eventId ${delivery.event.eventId} ${delivery.state} (GET /__sandbox/webhooks/deliveries/${delivery.id})`);
}
