/**
 * How long a replica's hold on shared work lasts when it stops renewing it (docs/decisions.md#d84-shared-store):
 * a claim on a delivery not yet recorded, above the receiver's longest timeout (10 s, legacy), and the time
 * other replicas leave a merchant's due items to the replica that moved its clock. Apart from the shared store,
 * so that the agenda can read it without loading the database client.
 */
export const CLAIM_LEASE_MS = 30_000;
