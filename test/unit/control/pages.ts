import { expect } from 'vitest';
import type { ControlClient, ControlResponse } from '../../support/control.js';

/**
 * Reading a whole paged list of the control API (control-api.yaml,
 * "Paging") the way a QA script does: page after page, following `next`.
 */

/** A paged list of the control API and the field its rows come in. */
export type PagedList = 'payments' | 'orders' | 'requests';

/** One page as the control API answered it (200, checked against the document by the client). */
export async function page(control: ControlClient, list: PagedList, query: Record<string, string | number | undefined> = {}): Promise<ControlResponse> {
  const response = await control.send('GET', `/${list}`, { query });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response;
}

/**
 * Every row of a list, following `next` from the first page to the last.
 * @param query the filters and `limit`, sent with every page
 * @returns the rows in the order the pages gave them, and the pages' sizes
 */
export async function everyRow(control: ControlClient, list: PagedList, query: Record<string, string | number | undefined> = {}): Promise<{ rows: any[]; sizes: number[] }> {
  const rows: any[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  do {
    const { body } = await page(control, list, { ...query, cursor });
    rows.push(...body[list]);
    sizes.push(body[list].length);
    cursor = body.next;
    // A bound on the walk, so that a cursor that never ends fails the test instead of hanging it.
    expect(sizes.length).toBeLessThan(10_000);
  } while (cursor !== undefined);
  return { rows, sizes };
}
