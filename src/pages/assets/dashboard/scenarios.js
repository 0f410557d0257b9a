// The scenario catalogue with its test values, searchable, and overrides:
// "force this scenario for the next N requests of this merchant".
import { button, call, cell, disclosure, field, guarded, h, input, json, keyCell, nav, query, segment, table } from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'scenarios';
/** The page's title. */
export const title = () => 'Scenarios';

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, search, setQuery }) {
  let shown = search;
  const find = input('q', search.get('q'), { type: 'search', maxlength: '100', placeholder: 'name, description, operation or test value' });
  const filter = h('form', { className: 'row', attrs: { role: 'search' } }, field('Search the catalogue', find, 'wide-field'), h('button', { type: 'submit' }, 'Search'));
  filter.addEventListener('submit', (event) => { event.preventDefault(); setQuery({ q: find.value.trim(), publicKey: shown.get('publicKey') }, { replace: false }); });
  const merchantKey = input('publicKey', search.get('publicKey'), { maxlength: '128', placeholder: 'empty: every merchant' });
  const times = input('times', '1', { type: 'number', min: '1', step: '1' });
  const overrides = h('div');
  const catalogue = h('div');
  main.append(h('h1', {}, 'Scenarios'),
    h('section', { className: 'card', id: 'override-settings', attrs: { 'aria-labelledby': 'force-title' } }, h('h2', { id: 'force-title' }, 'Forcing a scenario'),
      h('p', { className: 'hint' }, 'The buttons below force a scenario for the next requests of this merchant (an override), whatever the requests say.'),
      h('div', { className: 'row' }, field('Merchant (public key)', merchantKey, 'wide-field'), field('Next requests (empty: until removed)', times)), overrides),
    h('section', { className: 'card', attrs: { 'aria-labelledby': 'catalogue-title' } }, h('h2', { id: 'catalogue-title' }, 'Catalogue'), filter, catalogue));

  const force = (name) => guarded(async () => {
    const body = { scenario: name };
    if (merchantKey.value.trim()) body.publicKey = merchantKey.value.trim();
    if (times.value) body.times = Number(times.value);
    await call('POST', '/overrides', body);
    nav.notice(`Override set: ${name} for ${body.publicKey ?? 'every merchant'}${body.times ? `, the next ${body.times} ${body.times === 1 ? 'request' : 'requests'}` : ' until removed'}.`);
    await load();
  });

  async function load() {
    const q = (shown.get('q') ?? '').toLowerCase();
    const [{ scenarios }, page] = await Promise.all([call('GET', '/scenarios'), call('GET', `/overrides${query({ limit: 100 })}`)]);
    const matching = scenarios.filter((s) => !q || JSON.stringify([s.name, s.description, s.operations, s.match, s.then]).toLowerCase().includes(q));
    overrides.replaceChildren(table('Overrides in force (the first that applies answers)', ['Scenario', 'Merchant', 'Left', 'Action'], page.overrides.map((o) => h('tr', {},
      cell(o.scenario ?? [o.fault, o.delay ? 'delay' : ''].filter(Boolean).join(', '), { oneLine: true }),
      o.publicKey ? keyCell('publicKey', o.publicKey) : cell('every merchant', { oneLine: true }),
      cell(o.times === undefined ? 'until removed' : String(o.times), { oneLine: true }),
      cell(button('Remove', () => guarded(async () => { await call('DELETE', `/overrides/${segment(o.id)}`); await load(); }), 'small secondary', { 'aria-label': `Remove the override ${o.scenario ?? o.id}` })))),
    { id: 'overrides', empty: 'None.' }));
    catalogue.replaceChildren(table(`${matching.length} of ${scenarios.length} scenarios, in the order they are tried`, ['Scenario', 'Applies to', 'What it does', 'Test values', 'Force'],
      matching.map((s) => h('tr', { dataset: { scenario: s.name } },
        cell(s.name, { oneLine: true }),
        cell(s.operations.join(', '), { className: 'text' }),
        cell(`${s.description}${s.explicit ? ' (only when asked for)' : ''}`, { className: 'text' }),
        cell(disclosure(testValues(s), json({ match: s.match, then: s.then, ...(s.example ? { example: s.example } : {}) })), { className: 'text' }),
        cell(button('Force', () => force(s.name), 'small', { 'aria-label': `Force ${s.name}` })))),
      { id: 'catalogue', empty: 'No scenario matches.' }));
  }

  return {
    load,
    update(next) { shown = next; find.value = next.get('q') ?? ''; },
    touches: (event) => event.kind === 'override',
  };
}

// The values a request sends to meet the scenario (its `match`), in one line: `amount 100.00, cardNumber 4000…`.
function testValues(s) {
  const flat = [];
  const walk = (value, path) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
    else flat.push(`${path} ${Array.isArray(value) ? value.join(' | ') : value}`);
  };
  // The operation is in its own column.
  const { operation: _operation, ...values } = s.match ?? {};
  walk(values, '');
  return flat.length === 0 ? (s.explicit ? 'X-Sandbox-Scenario header or an override' : 'any request') : flat.join(', ');
}
