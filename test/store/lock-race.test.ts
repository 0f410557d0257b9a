import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { Store as OpenStore } from '../../src/store/store.js';
import { storeFiles } from './fixtures.js';

/**
 * Two opens of one store file at once in one process, with the file
 * system's answers in the order that once let both win: the first open's
 * link made the lock, but its promise resolved only after the second had
 * read this process's pid in it. Each link here resolves late, so that
 * order comes every time.
 */

vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof import('node:fs/promises')>();
  return {
    ...real,
    link: async (from: string, to: string) => {
      await real.link(from, to);
      // The link is made at once; what made it hears of it late. A refused link is heard of at once.
      await sleep(30);
    },
  };
});

const { Store, StoreOpenError } = await import('../../src/store/store.js');
const files = storeFiles('payments-sandbox-lock-race-');

describe('the store lock, when the file system answers late', () => {
  it('lets one of two opens at once win, and refuses the other as the store in use', async () => {
    const both = await Promise.allSettled([Store.open({ file: files.file }), Store.open({ file: files.file })]);
    const opened = both.filter((result) => result.status === 'fulfilled');
    expect(opened).toHaveLength(1);
    const refused = both.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(StoreOpenError);
    expect(String(refused.reason.message)).toContain(`is in use by process ${process.pid}`);
    await (opened[0] as PromiseFulfilledResult<OpenStore>).value.close();
    expect(existsSync(`${files.file}.lock`)).toBe(false);
  });
});
