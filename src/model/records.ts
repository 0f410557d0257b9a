/**
 * The records the sandbox keeps. Amounts are decimal strings in major units,
 * in canonical two-decimal form ("150.00"); times are ISO 8601 UTC strings.
 * Full card number, CVV and PIN are never part of a record (docs/decisions.md#d24-card-data).
 */

/** How a payment was started: the initiate variants (USSD: docs/decisions.md#d61-ussd), or a hosted checkout link, or an order. */
export type PaymentMethod = 'CARD' | 'ACCOUNT' | 'MOMO' | 'TRANSFER' | 'USSD' | 'CHECKOUT' | 'ORDER';

/**
 * Where a payment stands. The spec names only REFUNDED and CANCELLED (spec,
 * States and transitions); PENDING, SUCCESSFUL and FAILED are the names
 * docs/decisions.md#d12-payment-states gives to what the result codes signal (20/S20/NIP pending, 00
 * success, S12 failure); EXPIRED is a pending payment whose lifetime ran out (README, "Time").
 * A card pre-authorisation is AUTHORIZED, then PARTIALLY_CAPTURED or
 * CAPTURED as it is captured; a direct charge is CAPTURED; a card
 * tokenisation is TOKENIZED (the provider's names: external-api.yml,
 * Authorise, Capture, ChargeCard and TokenizeaCard).
 */
export type PaymentStatus =
  | 'PENDING' | 'SUCCESSFUL' | 'FAILED' | 'CANCELLED' | 'REFUNDED' | 'EXPIRED'
  | 'AUTHORIZED' | 'PARTIALLY_CAPTURED' | 'CAPTURED' | 'TOKENIZED';

/**
 * What falls due for a pending payment, on its merchant's clock (README,
 * "Time"): the settlement a rule's `settle` promised, or the end of its
 * lifetime. Gone once the payment leaves PENDING.
 */
export interface PaymentDue {
  /** ISO 8601 UTC on the merchant's clock */
  at: string;
  /** settle: the outcome arrives (funds land, the phone approves); expire: nobody paid in time */
  event: 'settle' | 'expire';
  /** the outcome of a `settle` */
  outcome?: 'success' | 'failure';
}

/**
 * How many entries a payment's `history` keeps: the last 100, older ones
 * dropped, so that a payment changed again and again (a subscription's first
 * payment, a pre-authorisation captured in parts) cannot grow its record
 * without end (docs/decisions.md#d79-payment-history).
 */
export const HISTORY_LIMIT = 100;

/** The events of the state machine that give a payment a new outcome, and so an entry of its history. */
export type PaymentHistoryEvent = 'create' | 'choose-channel' | 'settle' | 'capture' | 'refund' | 'cancel' | 'expire';

/**
 * One entry of a payment's history (docs/decisions.md#d79-payment-history):
 * an outcome the state machine gave the payment, appended by `transition()`
 * (src/domain/state-machine.ts), the one place a payment changes.
 */
export interface PaymentHistoryEntry {
  /** ISO 8601 UTC on the merchant's clock */
  at: string;
  /** the payment's status after the event (a partial refund or capture may leave it as it was) */
  status: PaymentStatus;
  /** the result code of the outcome */
  code: string;
  /** the result message of the outcome; absent when empty */
  message?: string;
  /** the catalogue rule that decided the outcome */
  scenario: string;
  /** what caused it: the state machine's event */
  event: PaymentHistoryEvent;
}

/** What the sandbox keeps of a card: never the full number, CVV or PIN. */
export interface StoredCard {
  /** first six digits */
  bin: string;
  /** last four digits */
  last4: string;
  /** a stable token for the card, returned by refunds */
  token: string;
}

/**
 * How often a subscription is charged: the provider's subscription page names
 * DAILY, WEEKLY, MONTHLY and ANNUALLY, and its plan example sends HOURLY
 * (README, "Subscriptions").
 */
export type BillingCycle = 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'ANNUALLY';

/**
 * The subscription a payment of POST /recurring/subscribes starts (the
 * provider's subscription page; README, "Subscriptions"): its billingId is
 * the payment's paymentReference, and it is charged on its cycle, on its
 * merchant's clock, while ACTIVE.
 */
export interface Subscription {
  billingCycle: BillingCycle;
  /** how many cycles lie between two charges: the provider's `billingPeriod` ("1" in its example) */
  billingPeriod: number;
  /** decimal string, major units: what each charge takes (PUT /recurring/updates may change it) */
  amount: string;
  /** INACTIVE until its first payment is paid, and while paused by PUT /recurring/updates */
  status: 'ACTIVE' | 'INACTIVE';
  /** ISO 8601 UTC: charges fall at startDate plus whole billing periods (the request's `startDate`, else the payment's creation) */
  startDate: string;
  planId?: string;
  customerId?: string;
  cardName?: string;
  /** how many scheduled charges have been made */
  charges: number;
  /** ISO 8601 UTC on the merchant's clock, while ACTIVE: when the next charge falls due */
  nextChargeAt?: string;
}

/** Of a payment that charges a subscription's card again: which subscription, and how. */
export interface RecurringCharge {
  /** the subscription's billingId (the paymentReference of its first payment) */
  billingId: string;
  /** scheduled: its cycle came round (a `transaction.recurrent` notification); debit: POST /recurring/charge (`transaction.recurring.debit`) */
  kind: 'scheduled' | 'debit';
  /** of a scheduled charge: its number, from 1 */
  cycle?: number;
}

/** The account a transfer payment is paid into (spec, initiate response, Transfer). */
export interface TransferAccount {
  walletName: string;
  wallet: string;
  bankName: string;
  accountNumber: string;
}

/** One payment of one merchant, keyed by (publicKey, paymentReference). */
export interface Payment {
  publicKey: string;
  paymentReference: string;
  linkingReference: string;
  method: PaymentMethod;
  status: PaymentStatus;
  /** the result code and message of the payment's latest outcome */
  code: string;
  message: string;
  /** decimal string, major units */
  amount: string;
  /** decimal string, major units: what has been refunded so far */
  refundedAmount: string;
  /**
   * decimal string, major units: what has been captured so far. Present
   * exactly on a card pre-authorisation (POST /payments/authorise and
   * /payments/authorise3ds), whose `amount` is the amount authorised.
   */
  capturedAmount?: string;
  /**
   * true when the card was authorised, charged or tokenized at once, without
   * its customer's authentication (POST /payments/authorise, /charge,
   * /tokenize): the payment has no authentication page
   */
  withoutAuthentication?: boolean;
  /**
   * Of a card payment made by POST /payments/create-token: the code its
   * merchant charges the card again with (POST /payments/charge-token) once
   * the payment is SUCCESSFUL, and the status query shows then
   */
  authorizationCode?: string;
  currency: string;
  country: string;
  /** of a payment of POST /recurring/subscribes: the subscription it started */
  subscription?: Subscription;
  /** of a payment that charged a subscription's card again (scheduled, or POST /recurring/charge) */
  recurring?: RecurringCharge;
  /** of a payment of a bulk token charge (POST /payments/bulk-tokenize-charge): its batch, its place in it from 1, and the authorization code it charged */
  bulk?: { batchId: string; item: number; authorizationCode: string };
  fullName?: string;
  email?: string;
  mobileNumber?: string;
  productId?: string;
  productDescription?: string;
  card?: StoredCard;
  transfer?: TransferAccount;
  /** how the customer chose to pay on the hosted checkout page (CHECKOUT and ORDER payments) */
  channel?: 'CARD' | 'ACCOUNT' | 'TRANSFER';
  /** what the initiate said of the customer's device and the card scheme, kept for the status query */
  channelType?: string;
  deviceType?: string;
  sourceIP?: string;
  /** the initiate's `type`, e.g. 3DSECURE */
  type?: string;
  /** merchant URLs the customer is sent back to (kept as sent: README, "Accepted beyond the spec") */
  redirectUrl?: string;
  callbackUrl?: string;
  /** name of the scenario that decided the payment's latest state */
  scenario: string;
  /**
   * Of a payment a go-live run made for its notifications: the run's id. It
   * counts in no check of the go-live report but the notification checks
   * (docs/decisions.md#d87-go-live-report).
   */
  goLiveRun?: string;
  /** while PENDING: the settlement its rule promised, or else the end of its lifetime */
  due?: PaymentDue;
  /**
   * The payment's outcomes, oldest first, at most HISTORY_LIMIT (the last
   * ones). Absent on records written before the sandbox kept it: no history known.
   */
  history?: PaymentHistoryEntry[];
  createdAt: string;
  updatedAt: string;
}

/** One line item of an order (spec, Order item). */
export interface OrderItem {
  orderId: string;
  currency: string;
  /** decimal string, major units */
  amount: string;
  /**
   * as sent (a string, or a number read as its digits): update and list
   * answer an integer when it is all digits, as the spec shows, and the value
   * as sent otherwise (docs/decisions.md#d19-order-updates)
   */
  productId: string;
  productDescription: string;
  createdAt: string;
  updatedAt: string;
}

/** An order created by POST /payments/order, keyed by (publicKey, paymentReference). */
export interface Order {
  publicKey: string;
  paymentReference: string;
  email?: string;
  fullName?: string;
  mobileNumber?: string;
  orderType?: string;
  callbackUrl: string;
  country: string;
  currency: string;
  /** decimal string, major units */
  amount: string;
  items: OrderItem[];
  createdAt: string;
  updatedAt: string;
}

/** A merchant the sandbox has seen: a test key pair, remembered on first use. */
export interface Merchant {
  /** test public key, `SBTESTPUBK_...` */
  publicKey: string;
  /** test secret key, `SBTESTSECK_...` */
  secretKey: string;
  /** ISO 8601 UTC time the sandbox first saw the pair */
  createdAt: string;
}
