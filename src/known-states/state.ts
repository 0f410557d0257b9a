import type { NotificationFaults, NotificationFaultView } from '../notifications/faults.js';
import type { Override, OverrideBook } from '../scenarios/overrides.js';
import { snapshotChunks } from '../store/snapshot-text.js';
import { StoreUnavailableError, type SnapshotRecords, type Store } from '../store/store.js';

/**
 * What a known state is made of: the store's records, the overrides in
 * force and the notification faults set. Overrides and faults live in
 * memory beside the store (docs/decisions.md#d26-in-memory-test-session), so
 * a snapshot gathers all three.
 */
export interface StateParts {
  store: Store;
  overrides: OverrideBook;
  faults: NotificationFaults;
}

/**
 * A state taken at one moment: the store's frozen records themselves (not
 * copies), and copies of the overrides and faults with what each has left.
 * Of every merchant, or of one (`publicKey`: its overrides, not the
 * sandbox-wide ones).
 */
export interface SandboxState {
  publicKey?: string;
  records: SnapshotRecords;
  overrides: Override[];
  faults: NotificationFaultView[];
}

/** Takes the state of every merchant, or of one, at once: O(records) to list, no record copied. */
export function takeState(parts: StateParts, publicKey?: string): SandboxState {
  const overrides = (publicKey === undefined ? parts.overrides.list() : parts.overrides.list(publicKey)).map((override) => ({ ...override }));
  const state = { records: parts.store.records(publicKey), overrides, faults: parts.faults.all(publicKey) };
  return publicKey === undefined ? state : { publicKey, ...state };
}

/**
 * Puts `state` in place of the state of every merchant, or of its merchant
 * (`state.publicKey`), and waits until the store's part is durable: one
 * change of the store, so a crash keeps all of it or none; the overrides
 * and faults are in memory, as ever.
 * @param state the state, or what makes it from the state found in the unit
 *   (on PostgreSQL, after every change other replicas committed): nothing comes between
 * @throws TypeError or RangeError from the store (a record that does not fit, too many
 *   merchants) and OverrideLimitError, before anything changes; StoreUnavailableError
 *   (rejects) when the disk refused the change: the store took it back, and the
 *   overrides and faults are put back as they were
 */
export async function putState(parts: StateParts, state: SandboxState | (() => SandboxState)): Promise<void> {
  let publicKey: string | undefined;
  let before: SandboxState | undefined;
  try {
    // One unit: on a shared store the books' change and the records' are one entry each of one batch.
    await parts.store.transaction(() => {
      const next = typeof state === 'function' ? state() : state;
      publicKey = next.publicKey;
      before = takeState(parts, publicKey);
      parts.overrides.replace(next.overrides, publicKey);
      try {
        parts.store.replace(next.records, publicKey);
      } catch (error) {
        parts.overrides.replace(before.overrides, publicKey);
        throw error;
      }
      parts.faults.replace(next.faults, publicKey);
    });
  } catch (error) {
    // On a shared store the unit's batch put the books back as it found them; elsewhere they are put back here.
    if (before && !parts.store.takesBackBooks && error instanceof StoreUnavailableError) {
      parts.overrides.replace(before.overrides, publicKey);
      parts.faults.replace(before.faults, publicKey);
    }
    throw error;
  }
}

/**
 * The snapshot document of a state (openapi/control-api.yaml, Snapshot): the
 * store file's format, version 3, with `takenAt`, `publicKey`, `overrides`
 * and `faults` before the lists, in pieces of about 64 KiB made one at a
 * time, so that a writer can let the event loop run between them. A
 * card's token is left out.
 * @param takenAt ISO 8601, the time the state was taken
 */
export function snapshotText(state: SandboxState, takenAt: string): Generator<string> {
  return snapshotChunks(state.records, { takenAt, publicKey: state.publicKey, overrides: state.overrides, faults: state.faults }, withoutCardToken);
}

// A card's token never leaves in a snapshot: a load makes it again (docs/decisions.md#d86-one-redaction-rule).
function withoutCardToken(row: object): object {
  const { card } = row as { card?: { bin: string; last4: string } };
  return card === undefined ? row : { ...row, card: { bin: card.bin, last4: card.last4 } };
}
