// Notifications: the deliveries, filtered by merchant, state and event type
// (query parameters of the address), each with its attempts; redeliver; and
// a merchant's notification faults, set and cleared here.
import {
  filterPanel, summaryOf, Pager, button, call, cell, disclosure, facts, field, guarded, h, input, json, keyCell, nav, paymentHref, query, readPage, segment, select, statusCell,
  table, when,
} from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'notifications';
/** The page's title. */
export const title = () => 'Notifications';

const STATES = ['scheduled', 'held', 'delivered', 'undelivered', 'withheld'];
const EVENT_TYPES = ['transaction', 'refund', 'transaction.recurrent', 'transaction.recurring.debit'];
const FAULTS = ['duplicate', 'late', 'out-of-order', 'never', 'receiver-error'];
const FILTERS = ['publicKey', 'state', 'eventType', 'paymentReference'];
// The deliveries whose attempts are open: a refresh keeps them open.
const opened = new Set();

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, search, setQuery, refresh }) {
  const pager = new Pager('Deliveries', refresh);
  let shown = search;
  const controls = {
    publicKey: input('publicKey', search.get('publicKey'), { maxlength: '128', placeholder: 'every merchant' }),
    state: select('state', [['', 'any'], ...STATES], search.get('state')),
    eventType: select('eventType', [['', 'any'], ...EVENT_TYPES], search.get('eventType')),
    paymentReference: input('paymentReference', search.get('paymentReference'), { maxlength: '200', placeholder: 'any payment' }),
  };
  const apply = () => { pager.reset(); setQuery(Object.fromEntries(FILTERS.map((name) => [name, controls[name].value.trim()]))); };
  const filters = h('form', { className: 'row', id: 'delivery-filters', attrs: { 'aria-label': 'Filter deliveries' } },
    field('Merchant (public key)', controls.publicKey, 'wide-field'), field('State', controls.state), field('Event type', controls.eventType), field('paymentReference', controls.paymentReference),
    h('button', { type: 'submit' }, 'Apply'), button('Clear', () => { pager.reset(); setQuery({}); }, 'secondary'));
  filters.addEventListener('submit', (event) => { event.preventDefault(); apply(); });
  for (const name of ['state', 'eventType']) controls[name].addEventListener('change', apply);
  const list = h('div');
  const faults = h('div');
  const panel = filterPanel(filters, FILTERS.filter((name) => search.get(name)).length);
  main.append(
    h('h1', {}, 'Notifications'),
    h('section', { className: 'card', attrs: { 'aria-labelledby': 'deliveries-title' } }, h('h2', { id: 'deliveries-title' }, 'Deliveries'), panel, list, pager.element),
    h('section', { className: 'card', id: 'faults', attrs: { 'aria-labelledby': 'faults-title' } }, h('h2', { id: 'faults-title' }, 'Faults'), faults),
  );

  async function load() {
    const params = Object.fromEntries(FILTERS.map((name) => [name, shown.get(name) ?? '']));
    const page = await readPage(pager, (cursor) => call('GET', `/webhooks/deliveries${query({ ...params, limit: 25, ...cursor })}`));
    pager.update(page, page.deliveries.length);
    list.replaceChildren(table('Newest first: Next shows older ones', ['Made', 'Event', 'Reference', 'Merchant', 'State', 'Attempts#', 'Next attempt', 'Details', 'Action'],
      page.deliveries.flatMap((d) => deliveryRows(d, refresh)), { id: 'deliveries', empty: 'No delivery matches.' }));
    faults.replaceChildren(...(params.publicKey ? await faultsOf(params.publicKey, refresh) : [h('p', { className: 'hint' }, 'Filter by a merchant above to see and set its notification faults.')]));
  }

  return {
    load,
    update(next) { shown = next; panel.querySelector('summary').textContent = summaryOf(FILTERS.filter((name) => next.get(name)).length); for (const name of FILTERS) controls[name].value = next.get(name) ?? ''; },
    touches: (event) => ['delivery', 'attempt', 'fault', 'webhook'].includes(event.kind) && (!shown.get('publicKey') || !event.publicKey || event.publicKey === shown.get('publicKey')),
  };
}

function deliveryRows(d, refresh) {
  const detailsId = `delivery-${d.id}`;
  const open = opened.has(d.id);
  const toggle = button(open ? 'Close' : 'Open', () => {
    const opening = !opened.has(d.id);
    if (opening) opened.add(d.id);
    else opened.delete(d.id);
    document.getElementById(detailsId).hidden = !opening;
    toggle.setAttribute('aria-expanded', String(opening));
    toggle.setAttribute('aria-label', `${opening ? 'Close' : 'Open'} the attempts of delivery ${d.id}`);
    toggle.textContent = opening ? 'Close' : 'Open';
  }, 'small secondary', { 'aria-expanded': String(open), 'aria-controls': detailsId, 'aria-label': `${open ? 'Close' : 'Open'} the attempts of delivery ${d.id}` });
  toggle.textContent = open ? 'Close' : 'Open';
  const redeliver = button('Redeliver', () => guarded(async () => {
    const copy = await call('POST', `/webhooks/deliveries/${segment(d.id)}/redeliver`);
    nav.notice(`Redelivering the ${d.event.eventType} event of ${d.paymentReference} (${copy.id}).`);
    await refresh();
  }), 'small secondary', { 'aria-label': `Redeliver delivery ${d.id}` });
  const row = h('tr', { className: 'delivery', dataset: { delivery: d.id } },
    cell(when(d.createdAt), { oneLine: true }), cell(d.event.eventType, { oneLine: true }),
    keyCell('paymentReference', d.paymentReference, { href: paymentHref(d.publicKey, d.paymentReference) }),
    keyCell('publicKey', d.publicKey, { href: `/__sandbox/dashboard/merchants/${segment(d.publicKey)}` }),
    statusCell(d.state, 'state'), cell(String(d.attempts.length), { oneLine: true, className: 'num' }),
    cell(d.state === 'scheduled' ? when(d.dueAt) : '—', { oneLine: true }), cell(toggle), cell(redeliver));
  const fault = d.fault ? [d.fault.kind, d.fault.delay, d.fault.status, d.fault.attempts === undefined ? undefined : `${d.fault.attempts} attempts`].filter((part) => part !== undefined).join(', ') : '';
  const details = h('td', { colSpan: 9 },
    facts([['Delivery', d.id], ['Event id', d.event.eventId], ['ackReference', d.ackReference], ['Schedule', d.schedule], ['Repeats', d.copyOf], ['Fault', fault], ['Updated', when(d.updatedAt)]]),
    table('Attempts', ['Time', 'Status', 'Latency#', 'Answer', 'Sent to'], d.attempts.map((a) => h('tr', {},
      cell(when(a.at), { oneLine: true }), cell(a.status === undefined ? 'no answer' : String(a.status), { oneLine: true }),
      cell(`${Math.round(a.latencyMs)} ms`, { oneLine: true, className: 'num' }), cell(a.acknowledged ? 'acknowledged' : (a.reason ?? 'not acknowledged'), { className: 'text reason' }), cell(a.url, { className: 'text' }))),
    { className: 'attempts', empty: d.state === 'scheduled' ? 'No attempt yet.' : `No attempt: ${d.state}.` }),
    disclosure('Event as sent', json(d.event)));
  return [row, h('tr', { className: 'opened delivery-details', id: detailsId, hidden: !open, dataset: { delivery: d.id } }, details)];
}

async function faultsOf(publicKey, refresh) {
  const view = await call('GET', `/webhooks/${segment(publicKey)}`);
  const kind = select('kind', FAULTS, 'duplicate');
  const times = input('times', '1', { type: 'number', min: '1', step: '1' });
  const delay = input('delay', 'PT1M', { maxlength: '64' });
  const status = input('status', '500', { type: 'number', min: '100', max: '599' });
  const attempts = input('attempts', '3', { type: 'number', min: '1', max: '10' });
  const delayField = field('Delay (late)', delay);
  const statusField = field('Status (receiver-error)', status);
  const attemptsField = field('Attempts (receiver-error)', attempts);
  const showFields = () => {
    delayField.hidden = kind.value !== 'late';
    statusField.hidden = attemptsField.hidden = kind.value !== 'receiver-error';
  };
  kind.addEventListener('change', showFields);
  showFields();
  const form = h('form', { className: 'row', id: 'fault-form' }, field('Fault', kind), field('Next events (empty: until removed)', times), delayField, statusField, attemptsField, h('button', { type: 'submit' }, 'Set fault'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    guarded(async () => {
      const body = { kind: kind.value };
      if (times.value) body.times = Number(times.value);
      if (kind.value === 'late' && delay.value.trim()) body.delay = delay.value.trim();
      if (kind.value === 'receiver-error') {
        if (status.value) body.status = Number(status.value);
        if (attempts.value) body.attempts = Number(attempts.value);
      }
      await call('POST', `/webhooks/${segment(publicKey)}/faults`, body);
      nav.notice(`Fault set for ${publicKey}: ${body.kind}.`);
      await refresh();
    });
  });
  return [
    table(`Faults of ${publicKey}`, ['Fault', 'Left', 'Settings'], view.faults.map((f) => h('tr', {},
      cell(f.kind, { oneLine: true }), cell(f.times === undefined ? 'until removed' : String(f.times), { oneLine: true }),
      cell([f.delay, f.status, f.attempts === undefined ? undefined : `${f.attempts} attempts`].filter((x) => x !== undefined).join(', ')))), { id: 'fault-list', empty: 'No fault: notifications go as they should.' }),
    form,
    view.faults.length ? button('Remove every fault', () => guarded(async () => { await call('DELETE', `/webhooks/${segment(publicKey)}/faults`); nav.notice(`Removed the faults of ${publicKey}.`); await refresh(); }), 'small danger') : undefined,
  ].filter(Boolean);
}
