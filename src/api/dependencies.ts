import type { MerchantClocks } from '../clock/clocks.js';
import type { Outbox } from '../domain/commit.js';
import type { Links } from '../domain/answer.js';
import type { AllowedHosts } from '../guards/host.js';
import type { Journal } from '../journal/journal.js';
import type { RequestLog } from '../log/request-log.js';
import type { ScenarioSelector } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import type { HttpOperation } from '../validation/operations.js';

/** What the Payments API needs (src/api/core.ts); each step of a request takes the part it reads. */
export interface ApiDependencies {
  operations: HttpOperation[];
  store: Store;
  selector: ScenarioSelector;
  journal: Journal;
  links: Links;
  /** real time, ISO 8601 UTC: when a merchant is first seen */
  now: () => string;
  /** each merchant's clock (README, "Time"): the time its payments and notifications carry */
  clocks: MerchantClocks;
  /** what makes the notifications of a payment's change, stored with it (README, "Notifications") */
  outbox: Outbox;
  /** refuse what only the provider's clients send, as the spec's types say (`--strict`) */
  strict: boolean;
  /** one line per request (`--log-level`, `--log-format`); absent: no log */
  log?: RequestLog;
  /** the Host names it answers to */
  allowedHosts: AllowedHosts;
  /** answer browsers of any origin (`--cors`), state-changing requests of pages of other sites included; off by default */
  cors?: boolean;
}
