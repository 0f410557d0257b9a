// Shared pieces of the dashboard's views: control API calls with the control
// token, and elements built with textContent only: a value that came from a
// request (a reference, a header, a receiver's answer) is never parsed as HTML.

/** The control API's base path. */
export const CONTROL = '/__sandbox';
/** The dashboard's base address; every view's address is below it (docs/decisions.md#d83-dashboard-addresses). */
export const BASE = '/__sandbox/dashboard/';

// The control token (--control-token) lives in this tab's session only, never in a cookie:
// a cookie would be sent by any page that posts to the sandbox.
const TOKEN_KEY = 'payments-sandbox.control-token';

/** The control token kept for this tab, or `''`. */
export function storedToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) ?? ''; } catch { return ''; }
}

/** Keeps the control token for this tab. @throws Error when the browser keeps no session storage */
export function keepToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** An answer of the control API other than 2xx: its status and the `{message, error}` it carried. */
export class ControlError extends Error {
  constructor(status, message, error) {
    super(message);
    this.status = status;
    this.error = error;
  }
}

let onUnauthorized = () => {};
/** Sets what happens when the control API answers 401 (the token form is shown). */
export function whenUnauthorized(handler) { onUnauthorized = handler; }

/**
 * One control API request: JSON in, JSON out, with the tab's token.
 * @param path below /__sandbox, query string included
 * @throws ControlError for an answer other than 2xx
 */
export async function call(method, path, body) {
  const headers = {};
  // The control API takes state-changing requests as JSON only.
  if (method !== 'GET') headers['content-type'] = 'application/json';
  const token = storedToken();
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(CONTROL + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let json;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  if (response.status === 401) onUnauthorized();
  if (!response.ok) throw new ControlError(response.status, json?.message ?? `${response.status} ${response.statusText}`, json?.error);
  return json;
}

/**
 * A value as one segment of a control API path or of a dashboard address.
 * `.` and `..` cannot be one: every URL parser resolves them away.
 * @throws Error for `.` and `..`
 */
export function segment(value) {
  if (value === '.' || value === '..') throw new Error(`${value} cannot be sent as a path segment`);
  return encodeURIComponent(value);
}

/** A query string (`?a=1&b=2`, or `''`) of the parameters that have a value. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The address of a merchant's view. */
export const merchantHref = (publicKey) => `${BASE}merchants/${segment(publicKey)}`;
/**
 * The address of a payment's story; `undefined` for a paymentReference of
 * `.` or `..`, which no address path can carry (the merchant's view settles
 * those from its table, naming them in a request body).
 */
export const paymentHref = (publicKey, paymentReference) => (paymentReference === '.' || paymentReference === '..' ? undefined : `${merchantHref(publicKey)}/payments/${segment(paymentReference)}`);

/**
 * An element: `h('td', {className: 'num', title: 'x', dataset: {a: 1}, attrs: {'aria-label': 'y'}}, 'text', child)`.
 * Strings become text nodes; `undefined`, `null` and `false` children are left out.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null) continue;
    if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name === 'attrs') for (const [attr, v] of Object.entries(value)) { if (v !== undefined && v !== null && v !== false) element.setAttribute(attr, v === true ? '' : String(v)); }
    else if (name === 'on') for (const [type, listener] of Object.entries(value)) element.addEventListener(type, listener);
    else element[name] = value;
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * A long value without spaces (a URL, a key) as text that may wrap after its
 * punctuation (`/`, `.`, `_`, `-`, `:`, `?`, `&`, `=`), never inside a word:
 * text nodes with `<wbr>` between them.
 */
export function breakable(text) {
  const parts = String(text).split(/(?<=[/._\-:?&=,])/);
  const fragment = document.createDocumentFragment();
  parts.forEach((part, index) => {
    if (index > 0) fragment.append(document.createElement('wbr'));
    fragment.append(part);
  });
  return fragment;
}

/**
 * A table cell. `oneLine` marks a code, state, status, amount, method, time,
 * key or reference: kept on one line (`data-one-line`).
 */
export function cell(content, { oneLine = false, className, title } = {}) {
  const td = h('td', { className, title });
  if (oneLine) td.dataset.oneLine = '';
  append(td, [typeof content === 'string' && !oneLine ? breakable(content) : (content ?? '')]);
  return td;
}

/** `value` cut in its middle to at most `max` characters (`SBTESTPUBK_t4…kLr`), whole when short enough. */
function middle(value, max = 22) {
  if (value.length <= max) return value;
  const head = Math.ceil((max - 1) / 2);
  return `${value.slice(0, head)}…${value.slice(value.length - (max - 1 - head))}`;
}

/** Copies text to the clipboard; false when the browser refused. */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { value: text, className: 'skip' });
    document.body.append(area);
    area.select();
    const done = document.execCommand('copy');
    area.remove();
    return done;
  }
}

/** A button copying `value`, named "Copy <what> <value>" for a screen reader. */
export function copyButton(what, value) {
  const button = h('button', { type: 'button', className: 'copy', textContent: 'copy', attrs: { 'aria-label': `Copy ${what} ${value}`, title: `Copy ${what}` } });
  button.addEventListener('click', async (event) => {
    event.preventDefault();
    event.stopPropagation();
    const done = await copyText(value);
    button.textContent = done ? 'copied' : 'copy failed';
    setTimeout(() => { button.textContent = 'copy'; }, 1200);
  });
  return button;
}

/**
 * A long key or reference, shortened in its middle, the whole of it in
 * `title`, with a copy button; a link when `href` is given; `breaks`: it may
 * wrap after its punctuation (not in a one-line cell).
 */
export function shortValue(what, value, { href, max, breaks = false } = {}) {
  if (value === undefined || value === null || value === '') return h('span', { className: 'muted' }, '—');
  const text = middle(String(value), max);
  // Outside a one-line cell (a heading, a field's value) it may wrap after its punctuation; Chrome honours `<wbr>` even under nowrap, so a cell gets none.
  const content = breaks ? breakable(text) : text;
  const shown = href ? link(href, content) : h('span', {}, content);
  shown.title = String(value);
  shown.classList.add('short');
  return h('span', { className: 'value' }, shown, copyButton(what, String(value)));
}

/** A cell holding `shortValue(...)`, on one line. */
export function keyCell(what, value, options) {
  return cell(shortValue(what, value, options), { oneLine: true });
}

/** A link to one of the dashboard's views, followed without reloading the page (app.js). */
export function link(href, text, props = {}) {
  return h('a', { href, ...props, dataset: { internal: '', ...(props.dataset ?? {}) } }, text);
}

/** A button. */
export function button(label, onClick, className = 'small secondary', attrs) {
  return h('button', { type: 'button', className, attrs, on: { click: onClick } }, label);
}

/**
 * A table in a wrapper that scrolls sideways: `columns` are header names (a
 * name ending in `#` is right-aligned), `rows` table rows; an empty list says so.
 */
export function table(caption, columns, rows, { id, className, empty = 'Nothing yet.' } = {}) {
  const head = h('tr', {}, columns.map((name) => h('th', { scope: 'col', className: name.endsWith('#') ? 'num' : undefined }, name.replace(/#$/, ''))));
  const body = h('tbody', {}, rows);
  if (rows.length === 0) body.append(h('tr', {}, h('td', { colSpan: columns.length, className: 'muted' }, empty)));
  // The wrapper scrolls sideways at narrow widths: a keyboard reaches it, and it is named by its caption.
  return h('div', { className: 'scroll', tabIndex: 0, attrs: { role: 'region', 'aria-label': caption } },
    h('table', { className: className ? `table ${className}` : 'table', id }, h('caption', {}, caption), h('thead', {}, head), body));
}

/** A definition list of the pairs whose value is not empty. */
export function facts(pairs) {
  const dl = h('dl', { className: 'facts' });
  for (const [term, value] of pairs) {
    if (value === undefined || value === null || value === '') continue;
    dl.append(h('dt', {}, term), h('dd', {}, typeof value === 'string' ? breakable(value) : value));
  }
  return dl;
}

/** An ISO 8601 time as `yyyy-MM-dd HH:mm:ss` (UTC, on the merchant's clock). */
export const when = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : '');

/** Milliseconds as a short reading: `now`, `in 30 s`, `in 1 h 5 min`. */
export function inTime(ms) {
  if (ms <= 0) return 'now';
  const seconds = Math.round(ms / 1000);
  const parts = [[Math.floor(seconds / 86400), 'd'], [Math.floor(seconds / 3600) % 24, 'h'], [Math.floor(seconds / 60) % 60, 'min'], [seconds % 60, 's']];
  const said = parts.filter(([n]) => n > 0).slice(0, 2).map(([n, unit]) => `${n} ${unit}`);
  return said.length === 0 ? 'now' : `in ${said.join(' ')}`;
}

/** A status or state cell, coloured by its value. */
export function statusCell(value, prefix = 'status') {
  return cell(value ?? '', { oneLine: true, className: `${prefix} ${prefix}-${value}` });
}

/** A value as pretty-printed JSON in a `<pre>`. */
export function json(value) {
  return h('pre', { className: 'json' }, JSON.stringify(value, null, 2) ?? '');
}

/** A `<details>` with a summary, open or closed. */
export function disclosure(summary, content, open = false) {
  return h('details', { open }, h('summary', {}, summary), content);
}

/**
 * A list's filter form, in a panel that opens and closes: open on a wide
 * screen, or when a filter is set; on a narrow one the list comes first.
 * @param form the filter form; @param active how many filters the address sets
 */
export function filterPanel(form, active) {
  const wide = window.matchMedia('(min-width: 40rem)').matches;
  return h('details', { className: 'filters', open: wide || active > 0 }, h('summary', {}, summaryOf(active)), form);
}

/** What a filter panel's summary says: `Filters`, or `Filters (2 set)`. */
export const summaryOf = (active) => (active > 0 ? `Filters (${active} set)` : 'Filters');

/** A labelled form field: `field('Status', select)` with the control given an id. */
export function field(label, control, className) {
  control.id ||= `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Math.random().toString(36).slice(2, 7)}`;
  return h('div', { className }, h('label', { htmlFor: control.id }, label), control);
}

/** A `<select>` of `[value, label]` pairs (or plain values), `chosen` selected. */
export function select(name, options, chosen = '') {
  const element = h('select', { name }, options.map((option) => {
    const [value, label] = Array.isArray(option) ? option : [option, option];
    return h('option', { value }, label);
  }));
  element.value = chosen ?? '';
  return element;
}

/** An `<input>`. */
export function input(name, value = '', attrs = {}) {
  return h('input', { name, value: value ?? '', attrs: { autocomplete: 'off', ...attrs } });
}

/** Navigates to one of the dashboard's addresses without reloading (set by app.js). */
export const nav = { go: (href) => { location.href = href; }, notice: (_text) => {} };

/** Runs an action; its error is said in the notice line rather than thrown. */
export async function guarded(work) {
  try {
    await work();
  } catch (error) {
    nav.notice(`Could not do that: ${error.message}`);
  }
}

/**
 * A pager over a cursor-paged list of the control API (control-api.yaml,
 * "Paging"): a cursor only leads forward, so the cursors of earlier pages are
 * kept to go back, and where each page began.
 */
export class Pager {
  /** @param label names the pager ("<label> pages"); @param list its `data-list`; @param reload reads the list again */
  constructor(label, reload, list = label.toLowerCase()) {
    this.label = label;
    this.reload = reload;
    this.reset();
    this.previous = button('Previous', () => this.turn(-1));
    this.next = button('Next', () => this.turn(1));
    this.position = h('span', { className: 'muted', attrs: { 'aria-live': 'polite' } });
    this.element = h('nav', { className: 'pager', dataset: { list }, attrs: { 'aria-label': `${label} pages` } }, this.previous, this.position, this.next);
  }

  /** Back to the first page. */
  reset() {
    this.before = [];
    this.starts = [];
    this.cursor = undefined;
    this.following = undefined;
    this.first = 1;
    this.shown = 0;
  }

  /** The `cursor` parameter of the page shown. */
  params() { return this.cursor ? { cursor: this.cursor } : {}; }

  /**
   * Shows where a page just read stands: `{total, next}` and how many records it held. `counted` names the
   * records when a table shows them as rows of another kind (an order's items): "orders 1–2 of 2, 5 item rows".
   */
  update(page, shown, counted) {
    this.following = page.next;
    this.shown = shown;
    const range = `${this.first}–${this.first + shown - 1} of ${page.total}`;
    this.position.textContent = shown === 0 ? '' : counted ? `${counted.records} ${range}, ${counted.rows}` : range;
    this.previous.disabled = this.before.length === 0;
    this.next.disabled = !this.following;
    this.element.dataset.page = String(this.before.length + 1);
  }

  async turn(direction) {
    if (direction > 0) {
      if (!this.following) return;
      this.before.push(this.cursor);
      this.starts.push(this.first);
      this.first += this.shown;
      this.cursor = this.following;
    } else {
      if (this.before.length === 0) return;
      this.cursor = this.before.pop();
      this.first = this.starts.pop();
    }
    await guarded(this.reload);
  }
}

/**
 * Reads a page, starting again from the first when the cursor went stale (a
 * reset forgot what it named) rather than showing an error.
 */
export async function readPage(pager, read) {
  try {
    return await read(pager.params());
  } catch (error) {
    if (!pager.cursor) throw error;
    pager.reset();
    return read({});
  }
}
