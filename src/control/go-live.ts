import { goLiveReport } from '../go-live/report.js';
import { testValues } from '../go-live/test-values.js';
import type { ControlContext } from './context.js';
import { json, type ControlInput, type JsonAnswer } from './operation.js';

/**
 * GET /go-live/{publicKey} (control-api.yaml getGoLiveReport;
 * docs/decisions.md#d87-go-live-report): the merchant's go-live report, made
 * when asked from what the store keeps. The registry's `knownMerchant` has
 * refused a key the sandbox does not know (404), and the document a key
 * that is not a test public key (400).
 */
export function getGoLiveReport(input: ControlInput, context: ControlContext): JsonAnswer {
  const publicKey = String(input.params.publicKey);
  const { store, notifications, selector } = context;
  const merchant = store.merchant(publicKey)!;
  return json(goLiveReport({
    merchant,
    payments: store.payments(publicKey),
    deliveries: store.deliveries(publicKey),
    orders: store.orders(publicKey),
    now: context.now(),
    merchantNow: notifications.clocks.now(publicKey),
    testValueOf: catalogueValues(selector.engine.scenarios),
  }));
}

// The catalogue is fixed for the life of the process: its test values are found once per catalogue.
const byCatalogue = new WeakMap<object, ReturnType<typeof testValues>>();
function catalogueValues(scenarios: Parameters<typeof testValues>[0]): ReturnType<typeof testValues> {
  let values = byCatalogue.get(scenarios);
  if (!values) byCatalogue.set(scenarios, (values = testValues(scenarios)));
  return values;
}
