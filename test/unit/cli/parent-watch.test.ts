import { afterEach, describe, expect, it, vi } from 'vitest';
import { closesWithParent, PARENT_CHECK_MS, watchParent } from '../../../src/cli/parent-watch.js';

/**
 * When the sandbox closes with the process that started it
 * (docs/decisions.md#d69-close-with-npm-exec). test/cli/npm-exec-stop.test.ts
 * runs it under npm exec for real.
 */

afterEach(() => {
  vi.useRealTimers();
});

describe('closesWithParent', () => {
  it('under npm exec and npx, and under this package\'s npm start', () => {
    expect(closesWithParent({ npm_command: 'exec', npm_lifecycle_event: 'npx' }, 4242)).toBe(true);
    expect(closesWithParent({ npm_command: 'exec' }, 4242)).toBe(true);
    expect(closesWithParent({ npm_command: 'start', npm_lifecycle_event: 'start', npm_package_name: 'payments-sandbox' }, 4242)).toBe(true);
  });

  it('not elsewhere: started by hand, by another package\'s script, or by init', () => {
    expect(closesWithParent({}, 4242)).toBe(false);
    expect(closesWithParent({ npm_command: 'run', npm_lifecycle_event: 'sandbox:start', npm_package_name: 'payments-sandbox' }, 4242)).toBe(false);
    expect(closesWithParent({ npm_command: 'start', npm_lifecycle_event: 'start', npm_package_name: 'merchant-app' }, 4242)).toBe(false);
    expect(closesWithParent({ npm_command: 'exec' }, 1)).toBe(false);
    expect(closesWithParent({ npm_command: 'exec' }, 0)).toBe(false);
  });
});

describe('watchParent', () => {
  it('calls back once, when the parent pid changes, and not before', () => {
    vi.useFakeTimers();
    let parent = 4242;
    const exited = vi.fn();
    watchParent(exited, 4242, () => parent);
    vi.advanceTimersByTime(PARENT_CHECK_MS * 10);
    expect(exited).not.toHaveBeenCalled();
    parent = 1;
    vi.advanceTimersByTime(PARENT_CHECK_MS);
    expect(exited).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(PARENT_CHECK_MS * 10);
    expect(exited).toHaveBeenCalledTimes(1);
  });

  it('stops watching when told to', () => {
    vi.useFakeTimers();
    const exited = vi.fn();
    const stop = watchParent(exited, 4242, () => 1);
    stop();
    vi.advanceTimersByTime(PARENT_CHECK_MS * 4);
    expect(exited).not.toHaveBeenCalled();
  });
});
