// The clocks: each merchant's time, moved by an ISO 8601 duration or to a
// time, and what falls due on it, earliest first.
import { Pager, call, cell, facts, field, guarded, h, input, inTime, keyCell, nav, paymentHref, query, readPage, segment, table, when } from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'clock';
/** The page's title. */
export const title = () => 'Clock';

const KINDS = { settlement: 'settlement', expiry: 'expiry', charge: 'subscription charge', delivery: 'delivery attempt' };

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, search, setQuery, refresh }) {
  let shown = search;
  const pager = new Pager('Merchants', refresh);
  const chosen = input('publicKey', search.get('publicKey'), { maxlength: '128', placeholder: 'every merchant' });
  const chooser = h('form', { className: 'row', attrs: { 'aria-label': 'Choose a merchant' } }, field('Merchant (public key)', chosen, 'wide-field'), h('button', { type: 'submit' }, 'Show'));
  chooser.addEventListener('submit', (event) => { event.preventDefault(); pager.reset(); setQuery({ publicKey: chosen.value.trim() }); });
  const clocks = h('div');
  main.append(h('h1', {}, 'Clock'), h('p', { className: 'hint' }, 'Each merchant has its own clock. Moving it carries out, in time order, what falls due meanwhile: settlements, expiries, subscription charges and delivery attempts.'),
    h('section', { className: 'card' }, chooser), clocks, pager.element);

  async function load() {
    const one = shown.get('publicKey');
    let keys;
    if (one) keys = [one];
    else {
      const page = await readPage(pager, (cursor) => call('GET', `/merchants${query({ limit: 10, ...cursor })}`));
      pager.update(page, page.merchants.length);
      keys = page.merchants.map((m) => m.publicKey);
    }
    pager.element.hidden = Boolean(one);
    const views = await Promise.all(keys.map((key) => call('GET', `/clock/${segment(key)}`)));
    clocks.replaceChildren(...(views.length === 0 ? [h('p', { className: 'hint' }, 'No merchant yet.')] : views.map((clock) => clockCard(clock, refresh))));
  }

  return {
    load,
    update(next) { shown = next; chosen.value = next.get('publicKey') ?? ''; },
    touches: (event) => ['clock', 'payment', 'delivery', 'attempt'].includes(event.kind) && (!shown.get('publicKey') || event.publicKey === shown.get('publicKey')),
  };
}

function clockCard(clock, refresh) {
  const { publicKey } = clock;
  const now = Date.parse(clock.now);
  const by = input('by', 'PT1H', { maxlength: '64', 'aria-describedby': 'advance-hint' });
  // To the second: the milliseconds would only cut the example off in a narrow box.
  const to = input('to', '', { maxlength: '64', placeholder: clock.now.replace(/\.\d+Z$/, 'Z') });
  const advance = async (body) => {
    const moved = await call('POST', `/clock/${segment(publicKey)}/advance`, body);
    const fired = moved.fired.map((item) => `${KINDS[item.kind] ?? item.kind} of ${item.paymentReference}`);
    nav.notice(`The clock of ${publicKey} is now ${when(moved.now)} UTC. ${fired.length === 0 ? 'Nothing fell due.' : `Carried out: ${fired.join(', ')}.`}`);
    await refresh();
  };
  const byForm = h('form', { className: 'row', dataset: { form: 'advance-by' } }, field('Advance by (ISO 8601 duration)', by), h('button', { type: 'submit' }, 'Advance'));
  byForm.addEventListener('submit', (event) => { event.preventDefault(); guarded(() => advance({ by: by.value.trim() })); });
  const toForm = h('form', { className: 'row', dataset: { form: 'advance-to' } }, field('Advance to (ISO 8601 time)', to), h('button', { type: 'submit', className: 'secondary' }, 'Advance to'));
  toForm.addEventListener('submit', (event) => { event.preventDefault(); guarded(() => advance({ to: to.value.trim() })); });
  return h('section', { className: 'card clock', dataset: { merchant: publicKey } },
    h('h2', {}, 'Clock of ', keyCell('publicKey', publicKey, { href: `/__sandbox/dashboard/merchants/${segment(publicKey)}`, max: 30 }).firstChild),
    facts([['Merchant\'s time', `${when(clock.now)} UTC`], ['Ahead of real time', h('span', { className: 'offset' }, clock.offsetMs === 0 ? `${clock.offset} (real time)` : `${clock.offset} (${clock.offsetMs} ms)`)]]),
    h('div', { className: 'columns' }, byForm, toForm),
    h('p', { className: 'hint', id: 'advance-hint' }, 'PT30S, PT1H, P2D. A clock never goes back.'),
    table('What falls due, earliest first', ['Due at', 'In', 'What', 'Reference', 'Delivery'], clock.pending.map((item) => h('tr', {},
      cell(`${when(item.at)} UTC`, { oneLine: true }), cell(inTime(Date.parse(item.at) - now), { oneLine: true }), cell(KINDS[item.kind] ?? item.kind, { oneLine: true }),
      keyCell('paymentReference', item.paymentReference, { href: paymentHref(publicKey, item.paymentReference) }), keyCell('delivery', item.deliveryId))),
    { className: 'pending', empty: 'Nothing falls due.' }));
}
