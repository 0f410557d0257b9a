// The journal: requests to the Payments API, newest first, filtered by path,
// status, scenario, reference and merchant; an entry opens in a full-width
// row with its request and response pretty-printed.
import { filterPanel, summaryOf, Pager, button, call, cell, field, h, input, json, keyCell, paymentHref, query, readPage, table, when } from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'journal';
/** The page's title. */
export const title = () => 'Journal';

const FILTERS = ['path', 'status', 'scenario', 'paymentReference', 'publicKey'];
const opened = new Set();

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, search, setQuery, refresh }) {
  let shown = search;
  const pager = new Pager('Journal', refresh, 'requests');
  const controls = {
    path: input('path', search.get('path'), { maxlength: '200', placeholder: '/payments/initiates' }),
    status: input('status', search.get('status'), { maxlength: '3', inputmode: 'numeric', placeholder: '200', size: '4' }),
    scenario: input('scenario', search.get('scenario'), { maxlength: '100', placeholder: 'card-declined' }),
    paymentReference: input('paymentReference', search.get('paymentReference'), { maxlength: '200' }),
    publicKey: input('publicKey', search.get('publicKey'), { maxlength: '128' }),
  };
  const form = h('form', { className: 'row', id: 'journal-filters', attrs: { 'aria-label': 'Filter the journal' } },
    field('Path', controls.path), field('Status', controls.status), field('Scenario', controls.scenario), field('paymentReference', controls.paymentReference), field('Merchant (public key)', controls.publicKey),
    h('button', { type: 'submit' }, 'Apply'), button('Clear', () => { pager.reset(); setQuery({}); }, 'secondary'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    pager.reset();
    setQuery(Object.fromEntries(FILTERS.map((name) => [name, controls[name].value.trim()])));
  });
  const list = h('div');
  const panel = filterPanel(form, FILTERS.filter((name) => search.get(name)).length);
  main.append(h('h1', {}, 'Journal'), h('section', { className: 'card' }, panel, list, pager.element));

  async function load() {
    const params = Object.fromEntries(FILTERS.map((name) => [name, shown.get(name) ?? '']));
    const page = await readPage(pager, (cursor) => call('GET', `/requests${query({ ...params, limit: 25, ...cursor })}`));
    pager.update(page, page.requests.length);
    list.replaceChildren(table('Newest first: Next shows older requests', ['Time', 'Method', 'Path', 'Status', 'Scenario', 'Merchant', 'Reference', 'Warnings', 'Entry'],
      page.requests.flatMap((r) => entryRows(r)), { id: 'journal', empty: 'No request matches.' }));
  }

  return {
    load,
    update(next) { shown = next; panel.querySelector('summary').textContent = summaryOf(FILTERS.filter((name) => next.get(name)).length); for (const name of FILTERS) controls[name].value = next.get(name) ?? ''; },
    touches: (event) => event.kind === 'payment' || event.kind === 'override' || event.kind === 'order',
  };
}

function entryRows(r) {
  const id = `entry-${r.id}`;
  const open = opened.has(r.id);
  const toggle = button(open ? 'Close' : 'Open', () => {
    const opening = !opened.has(r.id);
    if (opening) opened.add(r.id);
    else opened.delete(r.id);
    document.getElementById(id).hidden = !opening;
    toggle.setAttribute('aria-expanded', String(opening));
    toggle.setAttribute('aria-label', `${opening ? 'Close' : 'Open'} entry ${r.id}: ${r.method} ${r.path}`);
    toggle.textContent = opening ? 'Close' : 'Open';
  }, 'small secondary', { 'aria-expanded': String(open), 'aria-controls': id, 'aria-label': `${open ? 'Close' : 'Open'} entry ${r.id}: ${r.method} ${r.path}` });
  const row = h('tr', { className: 'entry', dataset: { entry: String(r.id) } },
    cell(when(r.time), { oneLine: true }), cell(r.method, { oneLine: true }), cell(r.path, { oneLine: true }),
    cell(r.status === 0 ? `no answer (${r.fault ?? 'fault'})` : String(r.status), { oneLine: true, className: r.status >= 400 || r.status === 0 ? 'bad' : undefined }),
    cell(r.scenario, { oneLine: true }), keyCell('publicKey', r.publicKey),
    keyCell('paymentReference', r.paymentReference, r.publicKey && r.paymentReference ? { href: paymentHref(r.publicKey, r.paymentReference) } : {}),
    cell((r.warnings ?? []).join('; '), { className: r.warnings ? 'warnings text' : 'text' }), cell(toggle));
  const details = h('td', { colSpan: 9 },
    r.reason ? h('p', {}, r.reason) : undefined,
    h('div', { className: 'panes' }, h('div', {}, h('h3', {}, 'Request (redacted)'), json(r.request)), h('div', {}, h('h3', {}, 'Response'), r.response ? json(r.response) : h('p', { className: 'hint' }, 'No answer was sent.'))),
    h('p', { className: 'hint' }, `${r.durationMs} ms`));
  return [row, h('tr', { className: 'opened', id, hidden: !open }, details)];
}
