import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { Journal, type JournalEntry } from '../../../src/journal/journal.js';
import { ControlClient } from '../../support/control.js';
import { sandboxForTest } from '../../support/sandbox.js';

/**
 * The journal's `status` and `scenario` filters (src/journal/journal.ts,
 * JournalQuery; control-api.yaml, listRequests): a status exact or by its
 * class, a rule by its exact name, combined with the other filters.
 */

const KEY = 'SBTESTPUBK_journalfilters01';

const entry = (status: number, scenario?: string, publicKey = KEY): Omit<JournalEntry, 'id'> => ({
  time: '2025-03-14T09:00:00.000Z', method: 'POST', path: '/payments/initiates', publicKey, status, ...(scenario ? { scenario } : {}), durationMs: 1, request: { headers: {} },
});

/** A journal holding, oldest first: 200 ok, 400 bad, 402 declined, 500 broken, 0 (a fault), 201 ok, 404 of another merchant. */
function filled(): Journal {
  const journal = new Journal(100);
  journal.record(entry(200, 'account-pending'));
  journal.record(entry(400, 'invalid-amount'));
  journal.record(entry(402, 'card-declined'));
  journal.record(entry(500, 'server-error'));
  journal.record(entry(0));
  journal.record(entry(201, 'account-pending'));
  journal.record(entry(404, 'card-declined', 'SBTESTPUBK_someoneelse0001'));
  return journal;
}

const statuses = (entries: JournalEntry[]) => entries.map((found) => found.status);

describe('Journal status and scenario filters', () => {
  it('matches a status exactly, 0 for no answer', () => {
    const journal = filled();
    expect(statuses(journal.query({ status: 400 }))).toEqual([400]);
    expect(statuses(journal.query({ status: 0 }))).toEqual([0]);
    expect(statuses(journal.query({ status: 418 }))).toEqual([]);
  });

  it('matches a class of statuses', () => {
    const journal = filled();
    expect(statuses(journal.query({ status: '4xx' }))).toEqual([404, 402, 400]);
    expect(statuses(journal.query({ status: '2xx' }))).toEqual([201, 200]);
    expect(statuses(journal.query({ status: '5xx' }))).toEqual([500]);
    expect(statuses(journal.query({ status: '1xx' }))).toEqual([]);
  });

  it('matches a scenario by its exact name', () => {
    const journal = filled();
    expect(statuses(journal.query({ scenario: 'card-declined' }))).toEqual([404, 402]);
    expect(statuses(journal.query({ scenario: 'card' }))).toEqual([]);
  });

  it('combines them with the other filters, in the page and its total', () => {
    const journal = filled();
    const page = journal.page({ publicKey: KEY, status: '4xx', scenario: 'card-declined' }, 10);
    expect(statuses(page.entries)).toEqual([402]);
    expect(page.total).toBe(1);
    const paged = journal.page({ status: '2xx' }, 1);
    expect(statuses(paged.entries)).toEqual([201]);
    expect(paged.total).toBe(2);
    expect(paged.more).toBe(true);
    expect(journal.tally({ status: '4xx' }).count).toBe(3);
  });
});

describe('GET /__sandbox/requests with status and scenario', () => {
  let sandbox: Sandbox;
  let control: ControlClient;
  beforeAll(async () => {
    sandbox = await sandboxForTest();
    control = await ControlClient.for(sandbox);
  });
  afterAll(() => sandbox.close());

  it('filters and pages by them', async () => {
    for (let n = 0; n < 5; n += 1) {
      sandbox.journal.record(entry(402, 'card-declined'));
      sandbox.journal.record(entry(200, 'account-pending'));
      sandbox.journal.record(entry(503, 'server-error'));
    }
    const declined = await control.send('GET', '/requests', { query: { status: '4xx', scenario: 'card-declined', limit: 3 } });
    expect(declined.status).toBe(200);
    expect(declined.body.total).toBe(5);
    expect(declined.body.requests.map((found: JournalEntry) => found.status)).toEqual([402, 402, 402]);
    const rest = await control.send('GET', '/requests', { query: { status: '4xx', scenario: 'card-declined', limit: 3, cursor: declined.body.next } });
    expect(rest.body.requests).toHaveLength(2);
    expect(rest.body.next).toBeUndefined();
    expect((await control.send('GET', '/requests', { query: { status: '503' } })).body.total).toBe(5);
    expect((await control.send('GET', '/requests', { query: { status: '5xx', scenario: 'account-pending' } })).body.total).toBe(0);
  });

  it('refuses a status that is neither a status nor a class, and a name no rule could have, naming the parameter', async () => {
    for (const [name, value] of [['status', '6xx'], ['status', '4XX'], ['status', '1000'], ['status', 'ok'], ['scenario', 'Card Declined']]) {
      const response = await control.send('GET', '/requests', { query: { [name!]: value } });
      expect(response.status, `${name}=${value}`).toBe(400);
      expect(response.body.error).toBe('INPUT');
      expect(response.body.message).toContain(name);
    }
  });
});
