import { storeContract } from './contract.js';
import { postgresEngine } from './engines.js';

/**
 * The store's contract (contract.ts) on PostgreSQL, on a throwaway server of
 * its own: end to end, since the store talks to it over a socket. The same
 * contract on the JSON file and in memory: test/unit/store/contract.test.ts.
 */

storeContract([postgresEngine]);
