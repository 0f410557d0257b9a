import type { NotificationFaults, NotificationFaultView } from '../notifications/faults.js';
import type { Override, OverrideBook } from '../scenarios/overrides.js';
import type { UnitWatcher } from '../store/store.js';

/** An override or fault one writer changed: as it was before its first change, and its JSON text after its last (undefined: none). */
interface OwnEntry<T> {
  before: T | undefined;
  after: string | undefined;
}

/** The books as they were at one moment, by id, and how many changes each had had then. */
interface Copy {
  overrides: Map<string, Override>;
  faults: Map<string, NotificationFaultView>;
  changes: [number, number];
}

/** The books with one writer's changes taken back, and what of them it kept. */
export interface BooksTakenBack {
  overrides: Override[];
  faults: NotificationFaultView[];
  /** how many overrides and faults went back as they were */
  takenBack: number;
  /** `override <id>`, `notification fault <id>`: the writer's that somebody changed since, kept as they are */
  kept: string[];
}

/**
 * One writer's changes of the overrides and notification faults (a
 * fixtures load's), told by the store when each of its units begins and
 * ends, so that it can take back its own changes only
 * (docs/decisions.md#d76-fixtures). The books are copied only when they
 * changed since the writer's last unit, and compared only when its unit
 * changed them: a load that touches no override costs nothing here.
 */
export class OwnBooks implements UnitWatcher {
  private copy: Copy | undefined;
  private readonly overrides = new Map<string, OwnEntry<Override>>();
  private readonly faults = new Map<string, OwnEntry<NotificationFaultView>>();

  constructor(private readonly books: { overrides: OverrideBook; faults: NotificationFaults }) {}

  /** True while the writer changed neither book. */
  get untouched(): boolean {
    return this.overrides.size === 0 && this.faults.size === 0;
  }

  begin(): void {
    if (!this.copy || !this.still(this.copy)) this.copy = this.take();
  }

  end(): void {
    const copy = this.copy!;
    if (this.still(copy)) return;
    const now = this.take();
    note(this.overrides, copy.overrides, now.overrides);
    note(this.faults, copy.faults, now.faults);
    this.copy = now;
  }

  /**
   * The books now with the writer's own changes taken back: each override or
   * fault it changed whose value is still the one its last change left goes
   * back as it was (or goes, when it added it); one somebody changed since
   * (used by a request, deleted) keeps its value. One the writer removed comes
   * back in its place: an override by `createdAt`, a fault first of its merchant's.
   */
  withoutOwn(): BooksTakenBack {
    const kept: string[] = [];
    let takenBack = 0;
    const decide = <T extends { id: string }>(mine: Map<string, OwnEntry<T>>, now: readonly T[], name: string) => {
      const held = new Map(now.map((entry) => [entry.id, entry]));
      const back = new Map<string, T | undefined>();
      for (const [id, entry] of mine) {
        const value = held.get(id);
        if ((value === undefined ? undefined : JSON.stringify(value)) === entry.after) {
          back.set(id, entry.before);
          takenBack += 1;
        } else kept.push(`${name} ${id}`);
      }
      const result = now.flatMap((entry) => (back.has(entry.id) ? (back.get(entry.id) === undefined ? [] : [back.get(entry.id)!]) : [entry]));
      const missing = [...back.entries()].filter(([id, value]) => value !== undefined && !held.has(id)).map(([, value]) => value!);
      return { result, missing };
    };
    const overrides = decide(this.overrides, this.books.overrides.list().map((override) => ({ ...override })), 'override');
    const faults = decide(this.faults, this.books.faults.all(), 'notification fault');
    const ordered = [...overrides.result];
    for (const override of overrides.missing) {
      const at = ordered.findIndex((other) => other.createdAt > override.createdAt);
      ordered.splice(at === -1 ? ordered.length : at, 0, override);
    }
    // The book keeps each merchant's faults in the order given: one put first comes first of its merchant's, where a fault used up was.
    return { overrides: ordered, faults: [...faults.missing, ...faults.result], takenBack, kept };
  }

  private still(copy: Copy): boolean {
    return copy.changes[0] === this.books.overrides.changes && copy.changes[1] === this.books.faults.changes;
  }

  private take(): Copy {
    return {
      overrides: new Map(this.books.overrides.list().map((override) => [override.id, { ...override }])),
      faults: new Map(this.books.faults.all().map((fault) => [fault.id, fault])),
      changes: [this.books.overrides.changes, this.books.faults.changes],
    };
  }
}

// Every entry that differs between the two copies is the writer's: the first time, as it was before.
function note<T>(mine: Map<string, OwnEntry<T>>, before: Map<string, T>, after: Map<string, T>): void {
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(id);
    const is = after.get(id);
    const text = is === undefined ? undefined : JSON.stringify(is);
    if ((was === undefined ? undefined : JSON.stringify(was)) === text) continue;
    const entry = mine.get(id);
    if (entry) entry.after = text;
    else mine.set(id, { before: was, after: text });
  }
}
