// The dashboard's addresses (docs/decisions.md#d83-dashboard-addresses), in one place: the browser's
// router (app.js) shows the view an address names, and the sandbox answers 200 for those addresses
// and 404 for any other (src/http/app.ts), from this same module.

/**
 * The view a path below the dashboard's base names, and its parameters:
 * `{view, params: {publicKey?, paymentReference?}}`, or undefined when it
 * names none. `path` is what follows `/__sandbox/dashboard/`, not decoded.
 */
export function viewOf(path) {
  const segments = path.split('/');
  let decoded;
  try { decoded = segments.map(decodeURIComponent); } catch { return undefined; }
  const [first, second, third, fourth] = decoded;
  if (segments.length === 1 && SIMPLE.has(first)) return { view: first || 'overview', params: {} };
  if (segments.length === 2 && second === '' && SIMPLE.has(first) && first !== '') return { view: first, params: {} };
  if (first === 'merchants' && second) {
    if (segments.length === 2) return { view: 'merchant', params: { publicKey: second } };
    if (segments.length === 3 && third === 'go-live') return { view: 'go-live', params: { publicKey: second } };
    if (segments.length === 4 && third === 'payments' && fourth) return { view: 'payment', params: { publicKey: second, paymentReference: fourth } };
  }
  return undefined;
}

// The views without parameters, by their address's first segment ('' is the overview).
const SIMPLE = new Set(['', 'notifications', 'clock', 'scenarios', 'journal']);
