/**
 * `payments-sandbox trigger <eventType> --reference <paymentReference>`:
 * asks a running sandbox to send a payment's event now, as `stripe trigger`
 * does (README, "Notifications"), through the control API: the payment's
 * merchant is found with GET /__sandbox/payments/{paymentReference} unless
 * `--public-key` names it, then POST /__sandbox/webhooks/{publicKey}/trigger.
 * Loads nothing of the server.
 */

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
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(request.controlToken ? { authorization: `Bearer ${request.controlToken}` } : {}) };
  const base = `${request.origin.replace(/\/+$/, '')}/__sandbox`;
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new Error(`cannot reach the sandbox at ${request.origin}: ${(error as Error).message}`);
    }
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} /__sandbox${path} answered ${response.status}: ${String(answer.message ?? '')}`);
    return answer;
  };
  const reference = encodeURIComponent(request.paymentReference);
  const publicKey = request.publicKey ?? String((await call('GET', `/payments/${reference}`)).publicKey);
  const made = await call('POST', `/webhooks/${encodeURIComponent(publicKey)}/trigger`, { eventType: request.eventType, paymentReference: request.paymentReference });
  const deliveries = made.deliveries as Array<{ id: string; state: string; event: { eventType: string; eventId: string } }>;
  return deliveries.map((delivery) => `${delivery.id} ${delivery.event.eventType} eventId ${delivery.event.eventId} ${delivery.state} (GET /__sandbox/webhooks/deliveries/${delivery.id})`);
}
