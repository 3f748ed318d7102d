import { inTransaction, type Sql } from './database.js';
import type { Store } from './index.js';
import type { InvalidationKind } from './invalidation.js';

/** Names a record the transaction changed, for the storage endpoint's caches. */
export type ChangedRecord = (kind: InvalidationKind, key: string) => void;

/**
 * Runs `work` in one database transaction: a record write and its audit entry land together or not
 * at all. The caches of every instance hear of the changed records only after the commit, so none of
 * them reloads the old row in between (store methods given a transaction publish nothing).
 */
export async function inOneTransaction<T>(
  store: Store,
  work: (tx: Sql, changed: ChangedRecord) => Promise<T>,
): Promise<T> {
  const changes: { kind: InvalidationKind; key: string }[] = [];
  const result = (await store.db.sql.begin((transaction) =>
    work(inTransaction(transaction), (kind, key) => changes.push({ kind, key })),
  )) as T;
  for (const { kind, key } of changes) await store.bus.publish(kind, key);
  return result;
}
