import { storeContract } from '../../store/contract/contract.js';
import { fileEngine, memoryEngine } from '../../store/contract/engines.js';

/**
 * The store's contract (test/store/contract/contract.ts) on the JSON file, in
 * a temporary folder, and in memory: no socket, no process. The same contract
 * on PostgreSQL: test/store/contract/store-contract.test.ts.
 */

storeContract([fileEngine, memoryEngine]);
