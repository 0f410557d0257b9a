// The overview: every merchant with its payments counted by state, what falls
// due next on its clock, and its failing receivers (GET /__sandbox/overview).
import { Pager, button, call, cell, field, guarded, h, input, inTime, keyCell, link, merchantHref, nav, query, readPage, table, when } from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'overview';
/** The page's title. */
export const title = () => 'Overview';

const PAGE = 25;
const KINDS = { settlement: 'settlement', expiry: 'expiry', charge: 'subscription charge', delivery: 'delivery attempt' };

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, search, setQuery, refresh }) {
  const pager = new Pager('Merchants', refresh);
  let shown = search;
  const find = input('q', search.get('q') ?? '', { type: 'search', maxlength: '128', placeholder: 'Part of a public key' });
  const form = h('form', { className: 'row', attrs: { role: 'search' } }, field('Find a merchant', find), h('button', { type: 'submit' }, 'Find'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    pager.reset();
    setQuery({ q: find.value.trim() });
  });
  const list = h('div');
  const failing = h('div');
  const resetAll = button('Reset everything', () => guarded(async () => {
    if (!window.confirm('Return every merchant to the start-up state: what --snapshot and --fixtures made, or nothing without them. Every payment, order, delivery, override and journal entry since goes, and clocks go back. Go on?')) return;
    await call('POST', '/reset');
    nav.notice('Reset everything.');
    pager.reset();
    await refresh();
  }), 'small danger');
  main.append(
    h('h1', {}, 'Overview'),
    h('section', { className: 'card', attrs: { 'aria-labelledby': 'merchants-title' } }, h('h2', { id: 'merchants-title' }, 'Merchants'), form, list, pager.element),
    h('section', { className: 'card', attrs: { 'aria-labelledby': 'failing-title' } }, h('h2', { id: 'failing-title' }, 'Failing receivers'), failing),
    h('section', { className: 'card' }, h('h2', {}, 'The whole sandbox'), h('p', { className: 'hint' }, 'Back to the start-up state: what --snapshot and --fixtures made, or nothing without them. The catalogue and the settings stay.'), resetAll),
  );

  async function load() {
    const q = shown.get('q') ?? '';
    const page = await readPage(pager, (cursor) => overviewPage(q, cursor));
    pager.update(page, page.merchants.length);
    const rows = page.merchants.map((m) => {
      const byStatus = Object.entries(m.payments?.byStatus ?? {}).filter(([, n]) => n > 0).map(([status, n]) => `${status} ${n}`).join(', ');
      const now = m.clock ? Date.parse(m.clock.now) : Date.now();
      const due = m.nextDue ?? m.clock?.pending?.[0];
      const dueText = due ? `${KINDS[due.kind] ?? due.kind} of ${due.paymentReference} ${inTime(Date.parse(due.at) - now)}` : '';
      return h('tr', { dataset: { merchant: m.publicKey } },
        keyCell('publicKey', m.publicKey, { href: merchantHref(m.publicKey), max: 26 }),
        cell(String(m.payments?.total ?? ''), { oneLine: true, className: 'num' }),
        cell(byStatus, { className: 'text' }),
        cell(m.clock ? when(m.clock.now) : '', { oneLine: true }),
        cell(dueText, { className: 'text' }),
        cell(m.webhook?.url ?? 'none', { className: 'text' }),
        cell(String(m.failingDeliveries ?? 0), { oneLine: true, className: m.failingDeliveries ? 'num bad' : 'num' }));
    });
    list.replaceChildren(table(q ? `Merchants whose public key contains “${q}”` : 'Every merchant, in the order the sandbox first saw them',
      ['Merchant', 'Payments#', 'By state', 'Clock', 'Falls due next', 'Notification URL', 'Failing deliveries#'], rows, { id: 'merchants', empty: 'No merchant yet: one appears with its first request.' }));
    const bad = page.merchants.filter((m) => m.failingDeliveries > 0);
    failing.replaceChildren(bad.length === 0
      ? h('p', { className: 'hint' }, 'No receiver is failing among the merchants shown.')
      : h('ul', {}, bad.map((m) => h('li', {}, link(`/__sandbox/dashboard/notifications${query({ publicKey: m.publicKey })}`, `${m.publicKey}`), `: ${m.failingDeliveries} failing ${m.failingDeliveries === 1 ? 'delivery' : 'deliveries'}`, m.webhook?.url ? ` to ${m.webhook.url}` : ''))));
  }

  return { load, update(next) { shown = next; find.value = next.get('q') ?? ''; }, touches: () => true };
}

/**
 * A page of the overview: GET /overview; where the sandbox has no such
 * endpoint yet, put together from GET /merchants and each merchant's clock.
 */
async function overviewPage(q, cursor) {
  const params = { limit: PAGE, ...cursor };
  if (!q) {
    try {
      return await call('GET', `/overview${query(params)}`);
    } catch (error) {
      if (error.status !== 404 && error.status !== 400) throw error;
    }
  }
  const page = await call('GET', `/merchants${query({ ...params, publicKeyContains: q })}`);
  const merchants = await Promise.all(page.merchants.map(async (m) => {
    const [payments, clock] = await Promise.all([
      call('GET', `/payments${query({ publicKey: m.publicKey, limit: 1 })}`),
      call('GET', `/clock/${encodeURIComponent(m.publicKey)}`),
    ]);
    return { ...m, payments: { total: payments.total }, clock, nextDue: clock.pending[0] };
  }));
  return { ...page, merchants };
}
