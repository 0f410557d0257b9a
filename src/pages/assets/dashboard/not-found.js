// The view of an address that names no view (the server answers it 404 as well).
import { BASE, h, link } from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'not-found';
/** The page's title. */
export const title = () => 'No such view';

/** Draws the view into `main`. */
export function mount({ main }) {
  main.append(h('section', { className: 'card' },
    h('h1', {}, 'No such view'),
    h('p', {}, 'This address names no view of the dashboard: ', h('code', {}, location.pathname), '.'),
    h('p', {}, 'Go to the ', link(BASE, 'overview'), ', or pick a view in the header.')));
  return { load: async () => {}, touches: () => false };
}
