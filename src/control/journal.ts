/**
 * The request journal: the last `capacity` Payments API requests with their
 * answers, newest first. A fixed ring, so a sandbox can run for weeks in the
 * same memory (README, "Journal").
 */

/** One journalled request. Card numbers are masked, CVV and PIN hidden, Authorization redacted. */
export interface JournalEntry {
  id: number;
  /** ISO 8601 UTC time the request arrived */
  time: string;
  method: string;
  path: string;
  publicKey?: string;
  paymentReference?: string;
  /** the operationId, when the path is one of the API's */
  operation?: string;
  /** HTTP status; 0 when no answer was sent (a fault) */
  status: number;
  /** the rule that decided the answer (the X-Sandbox-Scenario header) */
  scenario?: string;
  fault?: string;
  /** what the request needed beyond the spec's types (X-Sandbox-Warnings; README, "Accepted beyond the spec") */
  warnings?: string[];
  durationMs: number;
  request: { headers: Record<string, unknown>; body?: unknown };
  response?: { body?: unknown };
}

/** What a journal query may filter on. */
export interface JournalQuery {
  path?: string;
  publicKey?: string;
  paymentReference?: string;
  limit?: number;
}

/** A bounded ring of journal entries. */
export class Journal {
  private readonly ring: Array<JournalEntry | undefined>;
  private next = 0;
  private lastId = 0;

  /**
   * @param capacity how many entries are kept; older ones are dropped (`--journal-size`)
   * @throws RangeError when capacity is not a whole number of at least 1
   */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`the journal size must be a whole number of at least 1, not ${capacity}`);
    this.ring = new Array(capacity);
  }

  /** Records an entry (its id is assigned here), dropping the oldest when full. */
  record(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const full: JournalEntry = { id: ++this.lastId, ...entry };
    this.ring[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
    return full;
  }

  /** How many entries are held now (at most `capacity`). */
  get count(): number {
    return this.ring.reduce((n, entry) => (entry ? n + 1 : n), 0);
  }

  /** Entries newest first, filtered; `limit` caps how many. */
  query(filter: JournalQuery = {}): JournalEntry[] {
    const found: JournalEntry[] = [];
    for (let step = 1; step <= this.capacity; step += 1) {
      const entry = this.ring[(this.next - step + this.capacity) % this.capacity];
      if (!entry) continue;
      if (filter.path !== undefined && entry.path !== filter.path) continue;
      if (filter.publicKey !== undefined && entry.publicKey !== filter.publicKey) continue;
      if (filter.paymentReference !== undefined && entry.paymentReference !== filter.paymentReference) continue;
      found.push(entry);
      if (filter.limit !== undefined && found.length >= filter.limit) break;
    }
    return found;
  }

  /** Forgets the entries of one merchant, or all. */
  clear(publicKey?: string): void {
    for (let index = 0; index < this.capacity; index += 1) {
      if (publicKey === undefined || this.ring[index]?.publicKey === publicKey) this.ring[index] = undefined;
    }
  }
}

/** A copy of a request body fit for the journal: card number masked to BIN and last four, CVV and PIN hidden. */
export function maskBody(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  // Clients send card numbers as JSON numbers too: mask those as well.
  if (typeof copy.cardNumber === 'string' || typeof copy.cardNumber === 'number') copy.cardNumber = maskCard(String(copy.cardNumber));
  for (const secret of ['cvv', 'pin']) if (copy[secret] !== undefined) copy[secret] = '***';
  // The key exchange's `<secret key>.<public key>`: the secret key is a credential.
  if (typeof copy.key === 'string') copy.key = copy.key.includes('.') ? `***${copy.key.slice(copy.key.indexOf('.'))}` : '***';
  return copy;
}

/**
 * A copy of a response body fit for the journal: the bearer token of a key
 * exchange and the card token of a refund are redacted, as the control API's
 * payment views leave the card token out.
 */
export function maskResponse(body: unknown): unknown {
  const data = (body as { data?: unknown } | undefined)?.data;
  if (typeof data !== 'object' || data === null) return body;
  const fields = { ...(data as Record<string, unknown>) };
  for (const name of ['EncryptedSecKey', 'EncrytedSecKey']) {
    if (typeof fields[name] === 'object' && fields[name] !== null) fields[name] = { ...(fields[name] as object), encryptedKey: '[redacted]' };
  }
  const payments = fields.payments as { card?: { token?: unknown } } | undefined;
  if (payments?.card?.token !== undefined) fields.payments = { ...payments, card: { ...payments.card, token: '[redacted]' } };
  return { ...(body as object), data: fields };
}

/** A card number as `512345******0008`. */
export const maskCard = (number: string): string =>
  number.length <= 10 ? '*'.repeat(number.length) : `${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`;
