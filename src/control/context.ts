import type { Links } from '../domain/answer.js';
import { ApiError, inputError } from '../errors.js';
import type { SandboxEvents } from '../events/source.js';
import type { Journal } from '../journal/journal.js';
import type { KnownStates } from '../known-states/known-states.js';
import type { Payment } from '../model/records.js';
import type { ScenarioSelector } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import type { HttpOperation } from '../validation/operations.js';
import { documentReader, type ServedDocuments } from './documents.js';
import type { NotificationControls } from './notifications.js';
import { queryText, type ControlInput } from './operation.js';
import { redactText } from '../redaction/redact.js';

/** What the control API needs. */
export interface ControlDependencies {
  /** the operations of openapi/control-api.yaml */
  controlOperations: HttpOperation[];
  store: Store;
  /** the store file, to check it is writable; absent in memory */
  dataFile?: string;
  selector: ScenarioSelector;
  journal: Journal;
  now: () => string;
  /** `ok` once the sandbox serves */
  state: () => 'starting' | 'ok' | 'stopping';
  /** the bearer token every control request but those the document opens must carry (`--control-token`); absent: none */
  controlToken?: string;
  /** the OpenAPI documents GET /openapi/{document} serves */
  documents: ServedDocuments;
  /** the base URL links are built on, which the served documents name as their server */
  publicUrl: () => string;
  /** notification URLs, deliveries, faults and clocks (README, "Notifications", "Time") */
  notifications: NotificationControls;
  /** fixtures, snapshots and the baseline a reset returns to (README, "Known states") */
  knownStates: KnownStates;
  /** the live events GET /events streams (docs/decisions.md#d80-server-sent-events) */
  events: SandboxEvents;
  /** the sandbox's page links, given to the merchant's operations a payment's refund, cancel and capture run */
  links: Links;
}

/** What every control run is given: the dependencies, and the look-ups several runs share, made once. */
export interface ControlContext extends ControlDependencies {
  /** the query's `publicKey`, when given */
  merchantOf(input: ControlInput): string | undefined;
  /** the merchants a list covers, in the order the store first saw them: the one named, or every one */
  merchantsOf(publicKey: string | undefined): string[];
  /**
   * The one payment a request names: `reference` (the path's paymentReference
   * unless given) of `publicKey` (the query's unless given), or of any merchant;
   * or a paymentReference as the control API shows it, card numbers masked
   * (docs/decisions.md#d86-one-redaction-rule), when one payment shows so.
   * @param naming how the request names a merchant, for the answer when the reference is several merchants'
   * @throws ApiError 404 NOT_FOUND for no such payment; 400 INPUT for a reference several merchants used
   */
  onePayment(input: ControlInput, publicKey?: string, reference?: string, naming?: string): Payment;
  /** a served document by name (`payments-api.yaml`...): its media type and text (documents.ts) */
  document(name: string): Promise<{ type: string; text: string }>;
}

/** The context of the control runs, made once at start. */
export function controlContext(deps: ControlDependencies): ControlContext {
  const { store } = deps;
  const merchantOf = (input: ControlInput) => queryText(input, 'publicKey');
  const merchantsOf = (publicKey: string | undefined): string[] => (publicKey !== undefined ? [publicKey] : store.merchants().map((merchant) => merchant.publicKey));
  return {
    ...deps,
    merchantOf,
    merchantsOf,
    onePayment(input, publicKey = merchantOf(input), reference = String(input.params.paymentReference), naming = 'add ?publicKey=') {
      // One keyed look-up per merchant: never a walk through every payment stored, but for a reference as the control API shows it.
      let found = merchantsOf(publicKey).map((key) => store.payment(key, reference)).filter((payment): payment is Payment => payment !== undefined);
      if (found.length === 0 && reference.includes('*')) found = merchantsOf(publicKey).flatMap((key) => store.payments(key).filter((payment) => redactText(payment.paymentReference) === reference));
      if (found.length === 0) throw new ApiError(404, { message: `No payment with paymentReference ${reference}`, error: 'NOT_FOUND' });
      if (found.length > 1) throw inputError(`paymentReference ${reference} is used by more than one merchant: ${naming}`);
      return found[0]!;
    },
    document: documentReader(deps.documents, deps.publicUrl),
  };
}
