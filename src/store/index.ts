import type { GatewayConfig } from '../config/schema.js';
import { SecretBox } from '../security/secret-box.js';
import { AccessCache, type CacheEvents } from './access-cache.js';
import { BucketStore } from './buckets.js';
import { CredentialStore } from './credentials.js';
import { openDatabase, type Database } from './database.js';
import { InvalidationBus, type Invalidation } from './invalidation.js';
import { runMigrations } from './migrate.js';
import { OrganisationStore } from './organisations.js';
import { StorageLeases } from './storage-leases.js';
import { StorageRecords } from './storage-records.js';
import { StorageReservations } from './storage-reservations.js';
import { StorageUploadsStore } from './storage-uploads.js';
import { StorageUsageStore } from './storage-usage.js';
import { UsageRecorder } from './usage.js';
import { UserStore } from './users.js';

/** Everything the two planes read and write, over one database. */
export interface Store {
  readonly db: Database;
  readonly bus: InvalidationBus;
  readonly users: UserStore;
  readonly organisations: OrganisationStore;
  readonly credentials: CredentialStore;
  readonly buckets: BucketStore;
  readonly cache: AccessCache;
  readonly usage: UsageRecorder;
  /** What the object store holds, for the storage quotas. */
  readonly storageUsage: StorageUsageStore;
  /**
   * The room reserved in the usage rows for the writes under way, and the keys they hold: one per
   * store, as its batches and lanes need every reservation and settlement of the process.
   */
  readonly storageReservations: StorageReservations;
  readonly storageLeases: StorageLeases;
  readonly storageRecords: StorageRecords;
  /** The multipart uploads under way in counted buckets, and their parts. */
  readonly storageUploads: StorageUploadsStore;
  close(): Promise<void>;
}

export interface StoreOptions {
  masterKey: Buffer;
  cache: { ttlMs: number; maxEntries: number; staleIfErrorMs?: number; events?: CacheEvents };
  usageFlushIntervalMs?: number;
  /** False in a storage worker: its main process migrated the database before starting it. */
  migrate?: boolean;
  /** A change committed but not announced to the other instances (their entries expire with the TTL). */
  onNotifyError?: (error: unknown, invalidation: Invalidation) => void;
}

/** Builds the store over an open database: migrates, starts listening for peers' invalidations. */
export async function createStore(db: Database, options: StoreOptions): Promise<Store> {
  if (options.migrate !== false) await runMigrations(db.sql);
  const bus = new InvalidationBus(db.sql, {
    notifyPeers: db.supportsListen,
    ...(options.onNotifyError === undefined ? {} : { onNotifyError: options.onNotifyError }),
  });
  await bus.listen();
  const box = new SecretBox(options.masterKey);
  const organisations = new OrganisationStore(db.sql, bus);
  const credentials = new CredentialStore(db.sql, box, bus);
  const buckets = new BucketStore(db.sql, bus);
  const cache = new AccessCache({ credentials, buckets, organisations }, bus, options.cache);
  const usage = new UsageRecorder(db.sql, options.usageFlushIntervalMs);
  return {
    db,
    bus,
    users: new UserStore(db.sql),
    organisations,
    credentials,
    buckets,
    cache,
    usage,
    storageUsage: new StorageUsageStore(db.counters),
    storageReservations: new StorageReservations(db.counters),
    storageLeases: new StorageLeases(db.counters),
    storageRecords: new StorageRecords(db.counters),
    storageUploads: new StorageUploadsStore(db.counters),
    close: async () => {
      await usage.close().catch(() => undefined);
      cache.close();
      await bus.close();
      await db.close();
    },
  };
}

/** The store's options as the configuration sets them. */
export function storeOptions(
  config: GatewayConfig,
  masterKey: Buffer,
  events?: CacheEvents,
  onNotifyError?: StoreOptions['onNotifyError'],
): StoreOptions {
  return {
    masterKey,
    cache: {
      ttlMs: config.cache.ttlSeconds * 1000,
      maxEntries: config.cache.maxEntries,
      staleIfErrorMs: config.cache.staleIfErrorSeconds * 1000,
      events,
    },
    ...(onNotifyError === undefined ? {} : { onNotifyError }),
  };
}

/**
 * Opens the configured database (`processes`: how many processes of this gateway will use it) and
 * builds the store over it.
 */
export async function openStore(config: GatewayConfig, options: StoreOptions, processes = 1): Promise<Store> {
  const db = await openDatabase(config, processes);
  try {
    return await createStore(db, options);
  } catch (error) {
    // A failed migration must not leave the embedded database open (and its directory locked).
    await db.close().catch(() => undefined);
    throw error;
  }
}
