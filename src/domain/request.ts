import { AMOUNT_PATTERN, normaliseAmount, toMinor } from '../model/money.js';
import type { OperationId, Variant } from '../model/operations.js';
import type { BillingCycle, Merchant, Order, Payment, StoredCard, Subscription } from '../model/records.js';
import { startDateOf } from './billing.js';
import type { Facts } from '../scenarios/engine.js';
import { walletDaysOf } from './due.js';
import type { Store } from '../store/store.js';

/**
 * The facts of one Payments API request, read once from its validated body,
 * its path and the store, and handed to the selection, the operation and the
 * journal: no later step reads the body again (docs/design.md, "A request: one way through").
 * Amounts are decimal strings in major units unless the name says minor units.
 */

/** A JSON body as parsed: the validated, relaxed body, or `{}` when there is none. */
export type Body = Record<string, unknown>;

/** The initiate fields a payment keeps as they were sent: what the status query answers (never card data). */
export const KEPT_FIELDS = [
  'fullName', 'email', 'mobileNumber', 'productId', 'productDescription', 'redirectUrl', 'callbackUrl', 'channelType', 'deviceType', 'sourceIP', 'type',
] as const;

/** One of KEPT_FIELDS. */
export type KeptField = (typeof KEPT_FIELDS)[number];

/** What a request that creates a payment (initiate, hosted checkout link, order) says of it. */
export interface NewPaymentFields {
  paymentReference: string;
  /** normalised to two decimals, e.g. "150.00" */
  amount: string;
  currency: string;
  country: string;
  /** the KEPT_FIELDS the body carries, as text */
  kept: Partial<Record<KeptField, string>>;
  /** a card initiate's number: only its BIN and last four are ever stored */
  cardNumber?: string;
  /** a transfer's `walletDaysActive` as whole days, when it is one (src/domain/due.ts) */
  walletDaysActive?: number;
}

/** One item of an order request (spec, endpoints 5 and 6). */
export interface OrderItemFields {
  /** empty when the request sends none (an order after payment: the sandbox gives one) */
  orderId: string;
  currency: string;
  /** normalised to two decimals */
  amount: string;
  productId: string;
  productDescription: string;
}

/** What an order request (POST /payments/order, PUT /products/orders) says of its order. */
export interface OrderFields {
  items: OrderItemFields[];
  /** required on creation (the document's schema) */
  callbackUrl?: string;
  email?: string;
  fullName?: string;
  mobileNumber?: string;
  orderType?: string;
}

/** What POST /recurring/subscribes says of its subscription, beside its first payment's fields. */
export interface SubscriptionFields {
  billingCycle: BillingCycle;
  /** whole cycles between charges, at least 1 */
  billingPeriod: number;
  /** ISO 8601 UTC; absent: the payment's creation */
  startDate?: string;
  planId?: string;
  customerId?: string;
  cardName?: string;
}

/** What PUT /recurring/updates asks: a status, an amount (normalised to two decimals), or both. */
export interface SubscriptionUpdate {
  status?: Subscription['status'];
  amount?: string;
}

/**
 * Everything known of a request once it is authenticated and validated.
 * The engine's Facts (operation, variant, body, headers, the stored payment)
 * plus the merchant and the typed fields each operation needs.
 */
export interface RequestFacts extends Facts {
  merchant: Merchant;
  /** the merchant's public key, whose overrides apply */
  publicKey: string;
  /** true when the merchant is not stored yet (a first key exchange, or Basic credentials of a new pair): stored with the answer */
  newMerchant: boolean;
  /**
   * The body as the client sent it, before numbers were read as strings and
   * nulls left out: what a client hashed (README, "Accepted beyond the spec").
   */
  sent: Body;
  /** the paymentReference of the body or the path */
  paymentReference?: string;
  /** the linkingReference of a completion */
  linkingReference?: string;
  /** initiate, hosted checkout link, order: the payment to create */
  newPayment?: NewPaymentFields;
  /** order creation and update: the order's fields */
  order?: OrderFields;
  /** order update: the stored order with that paymentReference */
  storedOrder?: Order;
  /** order list: the merchant's orders, oldest first */
  storedOrders?: Order[];
  /** refund: the amount in minor units, when it is a decimal amount */
  amountMinor?: number;
  /** refund: the currency named, if any */
  currency?: string;
  /** hosted checkout link: the hash sent, lower case */
  hash?: string;
  /** order look-up by orderId: the orderId of the path */
  orderId?: string;
  /** card operations (authorise, charge): the `cardToken` sent instead of the card's fields */
  cardToken?: string;
  /** card operations: the merchant's stored card of that token (or authorization code); absent when it is none of the merchant's */
  tokenCard?: StoredCard;
  /** charge-token, recurring charge: the `authorizationCode` sent instead of a card */
  authorizationCode?: string;
  /** charge-token, recurring charge: the merchant's paid payment of that authorization code (a tokenisation's or a subscription's) */
  tokenPayment?: Payment;
  /** subscribes: the subscription's fields */
  subscription?: SubscriptionFields;
  /** subscription update: what it asks */
  subscriptionUpdate?: SubscriptionUpdate;
  /** subscription lists: the merchant's subscriptions (the payments that started one), oldest first */
  subscriptions?: Payment[];
  /** subscription lists of one customer: the customerId of the path */
  customerId?: string;
  /** bulk token charge: its items, in order, each with what the store knows of it */
  bulkCharges?: BulkChargeItem[];
  /** bulk token charge search: the batchId of the query, and the merchant's payments of that batch in order */
  batchId?: string;
  batchPayments?: Payment[];
}

/** One item of a bulk token charge (its documentation, "Bulk Charge Token"). */
export interface BulkChargeItem {
  /** the item's fields; its currency and country are those of the payment whose card it charges */
  fields: NewPaymentFields;
  /** the item's publicKey, if it sends one */
  publicKey?: string;
  authorizationCode: string;
  /** the merchant's paid payment of that authorization code, if any */
  tokenPayment?: Payment;
  /** the merchant's payment with the item's paymentReference, if one exists */
  payment?: Payment;
}

/**
 * The initiate variant of a body: a CARD body carrying transfer fields is the
 * transfer variant (spec, Transfer variant), and so is `paymentType:
 * "TRANSFER"`, which the provider's Python SDK sends (README, "Accepted beyond the spec").
 */
export function variantOf(body: Body): Variant {
  if (body.paymentType === 'CARD') {
    const transfer = body.pocketReference !== undefined || body.amountControl !== undefined || body.walletDaysActive !== undefined;
    return transfer ? 'TRANSFER' : 'CARD';
  }
  return body.paymentType as Variant;
}

/** Where a request's facts come from besides the merchant. */
export interface RequestParts {
  operation: OperationId;
  /** the validated body (relaxed where a leniency applied); {} when there is none */
  body: Body;
  /** the body as sent; the same object when no leniency applied */
  sent: Body;
  /** the path's parameters */
  params: Record<string, string>;
  /** the request headers, lower-case names */
  headers: Record<string, string | string[] | undefined>;
  /** the query string's parameters, as the exchange read them */
  query?: Record<string, unknown>;
}

/**
 * The facts of one request, computed once.
 * @param merchant the merchant it acts for, stored or new (`newMerchant`)
 * @param store    read only: the payment, order or orders the request names
 */
export function factsOf(parts: RequestParts, merchant: Merchant, newMerchant: boolean, store: Store): RequestFacts {
  const { operation, params } = parts;
  // POST /payments/otp comes in two shapes (README decision 51): read as the one flat body the rules match.
  const body = operation === 'completeCardOtp' ? cardOtpBody(parts.body) : parts.body;
  const publicKey = merchant.publicKey;
  // A subscription's billingId is its first payment's paymentReference (external-api.yml, InitiateSubscription).
  const billingId = typeof body.billingId === 'string' ? body.billingId : params.billingId;
  const paymentReference = typeof body.paymentReference === 'string' && operation !== 'updateSubscription' ? body.paymentReference : (params.paymentReference ?? billingId);
  const linkingReference = typeof body.linkingReference === 'string' ? body.linkingReference : undefined;
  const payment: Payment | undefined =
    linkingReference !== undefined
      ? store.paymentByLinkingReference(publicKey, linkingReference)
      : paymentReference !== undefined
        ? store.payment(publicKey, paymentReference)
        : undefined;
  const facts: RequestFacts = {
    operation,
    body,
    headers: parts.headers,
    payment,
    merchant,
    publicKey,
    newMerchant,
    sent: parts.sent,
    paymentReference,
    linkingReference,
  };
  switch (operation) {
    case 'initiatePayment':
      facts.variant = variantOf(body);
      facts.newPayment = newPaymentFields(body, facts.variant === 'CARD');
      break;
    case 'createCheckoutLink':
      facts.newPayment = newPaymentFields(body, false);
      if (typeof body.hash === 'string') facts.hash = body.hash.toLowerCase();
      break;
    case 'createOrder':
      facts.newPayment = newPaymentFields(body, false);
      facts.order = orderFields(body);
      break;
    case 'updateOrders':
      facts.order = orderFields(body);
      if (paymentReference !== undefined) facts.storedOrder = store.order(publicKey, paymentReference);
      break;
    case 'listOrders':
      facts.storedOrders = store.orders(publicKey);
      break;
    case 'getOrderByOrderId':
      facts.storedOrders = store.orders(publicKey);
      facts.orderId = params.orderId;
      break;
    case 'createOrderAfterPayment':
      facts.order = orderFields(body);
      if (paymentReference !== undefined) facts.storedOrder = store.order(publicKey, paymentReference);
      break;
    case 'getOrderByReference':
      if (paymentReference !== undefined) facts.storedOrder = store.order(publicKey, paymentReference);
      break;
    case 'refundPayment':
    case 'createRefund':
    case 'capturePayment':
      if (typeof body.amount === 'string' && AMOUNT_PATTERN.test(body.amount)) facts.amountMinor = toMinor(body.amount);
      if (body.currency !== undefined) facts.currency = String(body.currency);
      break;
    case 'createSubscription':
      facts.subscription = subscriptionFields(body);
    // falls through: a subscription starts with a card payment
    case 'authorisePayment':
    case 'authorisePayment3ds':
    case 'chargeCard':
    case 'tokenizeCard':
    case 'createCardToken':
    case 'chargeToken':
    case 'chargeSubscription': {
      const fields = (facts.newPayment = newPaymentFields(body, true));
      if (typeof body.cardToken === 'string') {
        facts.cardToken = body.cardToken;
        facts.tokenCard = store.cardOfToken(publicKey, body.cardToken);
      }
      if (typeof body.authorizationCode === 'string') {
        facts.authorizationCode = body.authorizationCode;
        facts.tokenPayment = store.paymentOfAuthorizationCode(publicKey, body.authorizationCode);
        facts.tokenCard = facts.tokenPayment?.card;
      }
      const number = fields.cardNumber;
      if (facts.tokenCard) facts.card = { bin: facts.tokenCard.bin, last4: facts.tokenCard.last4 };
      else if (number !== undefined) facts.card = { bin: number.slice(0, 6), last4: number.slice(-4) };
      break;
    }
    case 'updateSubscription':
      facts.subscriptionUpdate = {
        ...(body.status === 'ACTIVE' || body.status === 'INACTIVE' ? { status: body.status } : {}),
        ...(typeof body.amount === 'string' && AMOUNT_PATTERN.test(body.amount) ? { amount: normaliseAmount(body.amount) } : {}),
      };
      break;
    case 'chargeTokenBulk': {
      const items = Array.isArray(parts.body) ? (parts.body as Body[]) : [];
      facts.bulkCharges = items.map((item) => {
        const tokenPayment = store.paymentOfAuthorizationCode(publicKey, String(item.authorizationCode));
        const fields: NewPaymentFields = {
          paymentReference: String(item.paymentReference),
          amount: normaliseAmount(String(item.amount)),
          currency: tokenPayment?.currency ?? 'NGN',
          country: tokenPayment?.country ?? 'NG',
          kept: {},
        };
        const charge: BulkChargeItem = { fields, authorizationCode: String(item.authorizationCode), payment: store.payment(publicKey, fields.paymentReference) };
        if (tokenPayment) charge.tokenPayment = tokenPayment;
        if (typeof item.publicKey === 'string') charge.publicKey = item.publicKey;
        return charge;
      });
      break;
    }
    case 'searchTokenBulk': {
      const asked = parts.query?.batchId;
      const batchId = typeof asked === 'string' ? asked : '';
      facts.batchId = batchId;
      facts.batchPayments = store.payments(publicKey).filter((stored) => stored.bulk?.batchId === batchId).sort((a, b) => a.bulk!.item - b.bulk!.item);
      break;
    }
    case 'listSubscriptions':
    case 'listCustomerSubscriptions':
    case 'listKeyCustomerSubscriptions':
    case 'listOwnCustomerSubscriptions':
      facts.subscriptions = store.payments(publicKey).filter((stored) => stored.subscription !== undefined);
      if (params.customerId !== undefined) facts.customerId = params.customerId;
      break;
    default:
      break;
  }
  return facts;
}

/**
 * The subscription fields of POST /recurring/subscribes, as the document
 * validated them: `billingPeriod` a whole number of cycles ("1" in the
 * provider's example; 1 when absent), `startDate` in the provider's
 * `2020-02-25 00:00:00` form or ISO 8601.
 */
function subscriptionFields(body: Body): SubscriptionFields {
  const period = Number(body.billingPeriod ?? 1);
  const fields: SubscriptionFields = {
    billingCycle: String(body.billingCycle).toUpperCase() as BillingCycle,
    billingPeriod: Number.isInteger(period) && period >= 1 ? period : 1,
  };
  const startDate = typeof body.startDate === 'string' ? startDateOf(body.startDate) : undefined;
  if (startDate !== undefined) fields.startDate = startDate;
  for (const field of ['planId', 'customerId', 'cardName'] as const) {
    if (typeof body[field] === 'string' && body[field] !== '') fields[field] = body[field];
  }
  return fields;
}

/**
 * The body of POST /payments/otp as one flat `{linkingReference, otp}`:
 * the provider's Python and Java SDKs send
 * `{"transaction": {"linkingreference", "otp"}}`, its PHP SDK the flat
 * `{linkingReference, otp, publicKey}` (../shared/provider/surface.md, 4).
 */
export function cardOtpBody(body: Body): Body {
  const nested = typeof body.transaction === 'object' && body.transaction !== null ? (body.transaction as Body) : body;
  const flat: Body = {};
  const linkingReference = nested.linkingreference ?? nested.linkingReference;
  if (linkingReference !== undefined) flat.linkingReference = linkingReference;
  if (nested.otp !== undefined) flat.otp = nested.otp;
  const publicKey = body.publicKey ?? body.publickey;
  if (publicKey !== undefined) flat.publicKey = publicKey;
  return flat;
}

function newPaymentFields(body: Body, card: boolean): NewPaymentFields {
  const kept: Partial<Record<KeptField, string>> = {};
  for (const field of KEPT_FIELDS) {
    const value = body[field];
    if (value !== undefined && value !== null) kept[field] = String(value);
  }
  const fields: NewPaymentFields = {
    paymentReference: String(body.paymentReference),
    amount: normaliseAmount(String(body.amount)),
    currency: String(body.currency),
    country: String(body.country),
    kept,
  };
  if (card && typeof body.cardNumber === 'string') fields.cardNumber = body.cardNumber;
  const walletDaysActive = walletDaysOf(body.walletDaysActive);
  if (walletDaysActive !== undefined) fields.walletDaysActive = walletDaysActive;
  return fields;
}

function orderFields(body: Body): OrderFields {
  const items = Array.isArray(body.orders) ? (body.orders as Body[]) : [];
  const fields: OrderFields = {
    items: items.map((item) => ({
      // An order after payment sends no orderId: the sandbox gives one (src/domain/orders.ts).
      orderId: item.orderId === undefined ? '' : String(item.orderId),
      currency: String(item.currency),
      amount: normaliseAmount(String(item.amount)),
      productId: String(item.productId),
      productDescription: typeof item.productDescription === 'string' ? item.productDescription : '',
    })),
  };
  for (const field of ['callbackUrl', 'email', 'fullName', 'mobileNumber', 'orderType'] as const) {
    if (typeof body[field] === 'string') fields[field] = body[field];
  }
  return fields;
}
