// A merchant's view: its payments with filters (query parameters of the
// address, so a filtered list can be bookmarked) and server-side paging, and
// its notification URL, faults, clock and overrides at a glance.
import {
  filterPanel, summaryOf, Pager, button, call, cell, disclosure, facts, field, guarded, h, input, inTime, keyCell, link, merchantHref, nav, paymentHref, query, readPage, segment, select, shortValue,
  statusCell, table, when,
} from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'merchant';
/** The page's title. */
export const title = (params) => `Merchant ${params.publicKey}`;

const PAGE = 50;
const STATUSES = ['PENDING', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED', 'EXPIRED', 'AUTHORIZED', 'PARTIALLY_CAPTURED', 'CAPTURED', 'TOKENIZED'];
const METHODS = ['CARD', 'ACCOUNT', 'MOMO', 'TRANSFER', 'USSD', 'CHECKOUT', 'ORDER'];
/** The filters of GET /payments this view sets from its address. */
const FILTERS = ['status', 'method', 'code', 'q', 'from', 'to', 'order'];
const KINDS = { settlement: 'settlement', expiry: 'expiry', charge: 'subscription charge', delivery: 'delivery attempt' };

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, params, search, setQuery, refresh }) {
  const { publicKey } = params;
  const pager = new Pager('Payments', refresh);
  let shownSearch = search;

  const controls = {
    status: select('status', [['', 'any'], ...STATUSES], search.get('status')),
    method: select('method', [['', 'any'], ...METHODS], search.get('method')),
    code: input('code', search.get('code'), { maxlength: '16', placeholder: 'S20', size: '6' }),
    q: input('q', search.get('q'), { type: 'search', maxlength: '200', placeholder: 'paymentReference or linkingReference' }),
    from: input('from', search.get('from'), { maxlength: '64', placeholder: '2026-11-24T00:00:00Z' }),
    to: input('to', search.get('to'), { maxlength: '64', placeholder: '2026-11-25T00:00:00Z' }),
    order: select('order', [['', 'oldest first'], ['newest', 'newest first']], search.get('order')),
  };
  const filterForm = h('form', { className: 'row', id: 'payment-filters', attrs: { 'aria-label': 'Filter payments' } },
    field('Status', controls.status), field('Method', controls.method), field('Result code', controls.code),
    field('Reference contains', controls.q, 'wide-field'), field('Created from (merchant clock)', controls.from, 'time-field'), field('Created before', controls.to, 'time-field'),
    field('Order', controls.order),
    h('button', { type: 'submit' }, 'Apply'),
    button('Clear', () => { pager.reset(); setQuery({}); }, 'secondary'));
  const applyFilters = () => {
    pager.reset();
    setQuery(Object.fromEntries(FILTERS.map((name) => [name, controls[name].value.trim()])));
  };
  filterForm.addEventListener('submit', (event) => { event.preventDefault(); applyFilters(); });
  for (const name of ['status', 'method', 'order']) controls[name].addEventListener('change', applyFilters);

  const payments = h('div');
  const glance = h('div', { className: 'columns' });
  const orders = h('div');
  const ordersPager = new Pager('Orders', refresh);

  const panel = filterPanel(filterForm, FILTERS.filter((name) => search.get(name)).length);
  main.append(
    h('h1', {}, 'Merchant ', shortValue('publicKey', publicKey, { max: 40, breaks: true })),
    h('p', {}, link(`${merchantHref(publicKey)}/go-live`, 'Go-live report', { id: 'go-live-link' }), ': is its integration ready for production, judged from its own traffic'),
    glance,
    h('section', { className: 'card', attrs: { 'aria-labelledby': 'payments-title' } }, h('h2', { id: 'payments-title' }, 'Payments'), panel, payments, pager.element),
    h('section', { className: 'card', attrs: { 'aria-labelledby': 'orders-title' } }, h('h2', { id: 'orders-title' }, 'Orders'), orders, ordersPager.element),
    h('section', { className: 'card' }, h('h2', {}, 'Reset'), button('Reset this merchant', () => guarded(async () => {
      if (!window.confirm(`Return ${publicKey} to the start-up state: what --snapshot and --fixtures made of it, or nothing without them?`)) return;
      await call('POST', `/reset${query({ publicKey })}`);
      nav.notice(`Reset ${publicKey}.`);
      pager.reset();
      await refresh();
    }), 'small danger')),
  );

  async function load() {
    const filters = Object.fromEntries(FILTERS.map((name) => [name, shownSearch.get(name) ?? '']));
    const [page, webhook, clock, overrides, orderPage] = await Promise.all([
      readPage(pager, (cursor) => call('GET', `/payments${query({ publicKey, limit: PAGE, ...filters, ...cursor })}`)),
      call('GET', `/webhooks/${segment(publicKey)}`),
      call('GET', `/clock/${segment(publicKey)}`),
      call('GET', `/overrides${query({ publicKey, withSandboxWide: 'true', limit: 25 })}`),
      readPage(ordersPager, (cursor) => call('GET', `/orders${query({ publicKey, limit: 20, ...cursor })}`)),
    ]);
    pager.update(page, page.payments.length);
    const narrowed = FILTERS.some((name) => filters[name] && name !== 'order');
    payments.replaceChildren(table(
      `${page.total} ${page.total === 1 ? 'payment' : 'payments'}${narrowed ? ' matching the filters' : ''}, ${filters.order === 'newest' ? 'newest' : 'oldest'} first`,
      ['Reference', 'Method', 'Status', 'Result', 'Message', 'Amount#', 'Refunded#', 'Scenario', 'Created', 'Settle'],
      page.payments.map((p) => h('tr', { dataset: { reference: p.paymentReference } },
        keyCell('paymentReference', p.paymentReference, { href: paymentHref(publicKey, p.paymentReference), max: 28 }),
        cell(p.method, { oneLine: true }),
        statusCell(p.status),
        cell(p.code, { oneLine: true }),
        cell(p.message, { className: 'text' }),
        cell(`${p.currency} ${p.amount}${p.capturedAmount !== undefined ? ` (captured ${p.capturedAmount})` : ''}`, { oneLine: true, className: 'num' }),
        cell(p.refundedAmount && Number(p.refundedAmount) > 0 ? `${p.currency} ${p.refundedAmount}` : '', { oneLine: true, className: 'num' }),
        cell(p.scenario, { oneLine: true }),
        cell(when(p.createdAt), { oneLine: true }),
        cell(p.status === 'PENDING' ? settleButtons(p, refresh) : ''))),
      { id: 'payments', empty: narrowed ? 'No payment matches these filters.' : 'No payment yet.' }));
    // The table has a row per item; the pages count orders.
    const itemRows = orderPage.orders.reduce((sum, o) => sum + o.items.length, 0);
    ordersPager.update(orderPage, orderPage.orders.length, { records: 'orders', rows: `${itemRows} item ${itemRows === 1 ? 'row' : 'rows'}` });
    orders.replaceChildren(table('One row per order item, oldest first', ['Reference', 'Item', 'Description', 'Amount#', 'Updated'],
      orderPage.orders.flatMap((o) => o.items.map((item) => h('tr', {},
        keyCell('paymentReference', o.paymentReference, { href: paymentHref(publicKey, o.paymentReference) }),
        cell(item.orderId, { oneLine: true }), cell(item.productDescription, { className: 'text' }),
        cell(`${item.currency} ${item.amount}`, { oneLine: true, className: 'num' }), cell(when(item.updatedAt), { oneLine: true })))),
      { id: 'orders' }));
    // The notification URL's form is drawn again only when the URL changed: an event must not wipe what is being typed.
    const webhookKey = JSON.stringify(webhook);
    const kept = glance.querySelector('#webhook');
    const webhookShown = kept && kept.dataset.key === webhookKey ? kept : webhookCard(publicKey, webhook, refresh);
    webhookShown.dataset.key = webhookKey;
    glance.replaceChildren(webhookShown, clockCard(publicKey, clock), overridesCard(overrides, refresh));
  }

  return {
    load,
    update(next) { shownSearch = next; panel.querySelector('summary').textContent = summaryOf(FILTERS.filter((name) => next.get(name)).length); for (const name of FILTERS) controls[name].value = next.get(name) ?? ''; },
    touches: (event) => !event.publicKey || event.publicKey === publicKey,
  };
}

// A pending payment settled from its row, named in the request body so that any reference (`.` and `..` too) arrives as it is.
function settleButtons(p, refresh) {
  const complete = (outcome, said) => guarded(async () => {
    await call('POST', '/payments/complete', { paymentReference: p.paymentReference, outcome, publicKey: p.publicKey });
    nav.notice(`${p.paymentReference} ${said}.`);
    await refresh();
  });
  return h('span', { className: 'actions' },
    button('Succeed', () => complete('success', 'succeeded'), 'small', { 'aria-label': `Succeed ${p.paymentReference}` }),
    button('Fail', () => complete('failure', 'failed'), 'small danger', { 'aria-label': `Fail ${p.paymentReference}` }));
}

const SOURCES = { merchant: 'its own URL', default: "the sandbox's --webhook-url", none: 'none: its notifications go nowhere' };

function webhookCard(publicKey, view, refresh) {
  const url = input('url', view.source === 'merchant' ? view.url : '', { type: 'url', maxlength: '2048', placeholder: 'http://127.0.0.1:3000/webhook', required: true });
  const schedule = select('schedule', ['current', 'legacy'], view.schedule);
  const events = select('events', [['', 'all'], ['transaction', 'transaction only'], ['refund', 'refund only']], view.events?.length === 1 ? view.events[0] : '');
  const form = h('form', { className: 'row', id: 'webhook-form' }, field('Notification URL', url, 'wide-field'), field('Schedule', schedule), field('Events sent', events), h('button', { type: 'submit' }, 'Set notification URL'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    guarded(async () => {
      const body = { url: url.value.trim(), schedule: schedule.value };
      if (events.value) body.events = [events.value];
      const set = await call('PUT', `/webhooks/${segment(publicKey)}`, body);
      nav.notice(`Notifications of ${publicKey} now go to ${set.url} (${set.schedule} schedule).`);
      await refresh();
    });
  });
  const faults = view.faults.length === 0 ? 'none' : view.faults.map((f) => `${f.kind} (${f.times === undefined ? 'until removed' : `next ${f.times}`})`).join(', ');
  return h('section', { className: 'card', id: 'webhook', attrs: { 'aria-labelledby': 'webhook-title' } },
    h('h2', { id: 'webhook-title' }, 'Notifications'),
    facts([['Sent to', view.url ?? 'nowhere: no notification URL'], ['Source', SOURCES[view.source] ?? view.source], ['Schedule', view.schedule], ['Events', view.events ? view.events.join(', ') : 'all'], ['Faults', faults]]),
    disclosure(view.source === 'merchant' ? 'Change the notification URL' : 'Set a notification URL', form),
    h('div', { className: 'actions' },
      view.source === 'merchant' ? button('Remove notification URL', () => guarded(async () => { await call('DELETE', `/webhooks/${segment(publicKey)}`); nav.notice(`Removed the notification URL of ${publicKey}.`); await refresh(); }), 'small danger') : undefined,
      link(`/__sandbox/dashboard/notifications${query({ publicKey })}`, 'Deliveries and faults')));
}

function clockCard(publicKey, clock) {
  const now = Date.parse(clock.now);
  const next = clock.pending[0];
  return h('section', { className: 'card', id: 'clock', attrs: { 'aria-labelledby': 'clock-title' } },
    h('h2', { id: 'clock-title' }, 'Clock'),
    facts([['Merchant\'s time', `${when(clock.now)} UTC`], ['Ahead of real time', clock.offsetMs === 0 ? 'no (real time)' : clock.offset],
      ['Falls due next', next ? `${KINDS[next.kind] ?? next.kind} of ${next.paymentReference}, ${inTime(Date.parse(next.at) - now)}` : 'nothing'], ['Items due', String(clock.pendingTotal ?? clock.pending.length)]]),
    link(`/__sandbox/dashboard/clock${query({ publicKey })}`, 'Move the clock'));
}

function overridesCard(page, refresh) {
  return h('section', { className: 'card', id: 'overrides', attrs: { 'aria-labelledby': 'overrides-title' } },
    h('h2', { id: 'overrides-title' }, 'Overrides'),
    page.overrides.length === 0 ? h('p', { className: 'hint' }, 'None: scenarios are chosen by the request.') : table('In force, the first that applies answers', ['Scenario', 'For', 'Left', ''],
      page.overrides.map((o) => h('tr', {},
        cell(o.scenario ?? [o.fault, o.delay ? 'delay' : ''].filter(Boolean).join(', '), { oneLine: true }),
        cell(o.publicKey ? 'this merchant' : 'every merchant', { oneLine: true }),
        cell(o.times === undefined ? 'until removed' : String(o.times), { oneLine: true }),
        cell(button('Remove', () => guarded(async () => { await call('DELETE', `/overrides/${segment(o.id)}`); await refresh(); }), 'small secondary', { 'aria-label': `Remove the override ${o.scenario ?? o.id}` }))))),
    link('/__sandbox/dashboard/scenarios', 'Force a scenario'));
}
