import type { ControlOperationId } from '../model/operations.js';
import { paymentAction } from './actions.js';
import { getGoLiveReport } from './go-live.js';
import { getGoLiveRun, startGoLiveRun } from './go-live-runs.js';
import { getSnapshot, loadFixtures, putSnapshot, resetState } from './known-states.js';
import {
  advanceClock, countDeliveries, createNotificationFault, deleteNotificationFaults, deleteWebhook, getClock, getDelivery, getWebhook, listDeliveries,
  redeliverNotification, setWebhook, triggerNotification,
} from './notifications.js';
import { controlOperation as operation, type ControlOperation } from './operation.js';
import { createOverride, deleteOverride, deleteOverrides, listOverrides } from './overrides.js';
import { completeNamedPayment, completePayment, getOverview, getPayment, getPaymentStory, listMerchants, listOrders, listPayments } from './payments.js';
import { clearRequests, countRequests, listRequests, streamEvents } from './requests.js';
import { getApiDocument, getHealth, getReadiness, getSchema, listScenarios } from './service.js';

/**
 * Every operation of the control API under `/__sandbox`, in one place, in
 * the document's order: its route in openapi/control-api.yaml, what it
 * reads, the body it takes and its run. The compiler checks the table
 * against ControlOperationId (no operation missing, none unknown); a test
 * checks the routes against the document. Whatever lists the control
 * operations (the core's routes, the MCP tools) is derived from it
 * (docs/design.md, "Adding an operation").
 */
export const CONTROL_OPERATIONS = {
  // The health check reports the last probe's finding: it reads no other replica's changes first.
  getHealth: operation('GET /health', getHealth, { reads: 'process' }),
  getReadiness: operation('GET /ready', getReadiness, { reads: 'process' }),
  getApiDocument: operation('GET /openapi/{document}', getApiDocument, { reads: 'process' }),
  listScenarios: operation('GET /scenarios', listScenarios),
  listOverrides: operation('GET /overrides', listOverrides),
  createOverride: operation('POST /overrides', createOverride),
  deleteOverrides: operation('DELETE /overrides', deleteOverrides),
  deleteOverride: operation('DELETE /overrides/{id}', deleteOverride),
  countRequests: operation('GET /requests/count', countRequests),
  listRequests: operation('GET /requests', listRequests),
  clearRequests: operation('DELETE /requests', clearRequests),
  streamEvents: operation('GET /events', streamEvents, { stream: true }),
  getOverview: operation('GET /overview', getOverview),
  listMerchants: operation('GET /merchants', listMerchants),
  listPayments: operation('GET /payments', listPayments),
  completeNamedPayment: operation('POST /payments/complete', completeNamedPayment),
  getPayment: operation('GET /payments/{paymentReference}', getPayment),
  getPaymentStory: operation('GET /payments/{paymentReference}/story', getPaymentStory),
  completePayment: operation('POST /payments/{paymentReference}/complete', completePayment),
  refundPaymentAsMerchant: operation('POST /payments/{paymentReference}/refund', paymentAction('refund')),
  cancelPaymentAsMerchant: operation('POST /payments/{paymentReference}/cancel', paymentAction('cancel')),
  capturePaymentAsMerchant: operation('POST /payments/{paymentReference}/capture', paymentAction('capture')),
  listOrders: operation('GET /orders', listOrders),
  // Known states replace the state as a whole and run one at a time with a load: no fixtures step may be one
  // (docs/decisions.md#d76-fixtures).
  resetState: operation('POST /reset', resetState, { wholeState: true }),
  loadFixtures: operation('POST /fixtures', loadFixtures, { wholeState: true, body: 'fixtures' }),
  getSnapshot: operation('GET /snapshot', getSnapshot, { wholeState: true }),
  putSnapshot: operation('PUT /snapshot', putSnapshot, { wholeState: true, body: 'snapshot' }),
  getSchema: operation('GET /schemas/{schema}', getSchema, { reads: 'process' }),
  listDeliveries: operation('GET /webhooks/deliveries', listDeliveries),
  countDeliveries: operation('GET /webhooks/deliveries/count', countDeliveries),
  getDelivery: operation('GET /webhooks/deliveries/{id}', getDelivery),
  redeliverNotification: operation('POST /webhooks/deliveries/{id}/redeliver', redeliverNotification),
  // Those that store something for the merchant in their path refuse a key that is no merchant: reads and removals of one
  // store nothing, and answer as for a merchant with nothing set (docs/decisions.md#d42-webhook-urls-and-clocks-stored).
  getWebhook: operation('GET /webhooks/{publicKey}', getWebhook),
  setWebhook: operation('PUT /webhooks/{publicKey}', setWebhook, { knownMerchant: true }),
  deleteWebhook: operation('DELETE /webhooks/{publicKey}', deleteWebhook),
  createNotificationFault: operation('POST /webhooks/{publicKey}/faults', createNotificationFault, { knownMerchant: true }),
  deleteNotificationFaults: operation('DELETE /webhooks/{publicKey}/faults', deleteNotificationFaults),
  triggerNotification: operation('POST /webhooks/{publicKey}/trigger', triggerNotification, { knownMerchant: true }),
  getClock: operation('GET /clock/{publicKey}', getClock),
  advanceClock: operation('POST /clock/{publicKey}/advance', advanceClock, { knownMerchant: true }),
  // The report reads what the store keeps of a merchant; a run stores deliveries and payments for it: both only for a merchant it knows.
  getGoLiveReport: operation('GET /go-live/{publicKey}', getGoLiveReport, { knownMerchant: true }),
  startGoLiveRun: operation('POST /go-live/{publicKey}/runs', startGoLiveRun, { knownMerchant: true }),
  getGoLiveRun: operation('GET /go-live/{publicKey}/runs/{id}', getGoLiveRun, { knownMerchant: true }),
} satisfies Record<ControlOperationId, ControlOperation>;
