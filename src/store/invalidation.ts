import type { Sql } from './database.js';

/** The kinds of record the caches hold and the bus invalidates. */
export const INVALIDATION_KINDS = ['credential', 'bucket', 'organisation'] as const;
export type InvalidationKind = (typeof INVALIDATION_KINDS)[number];

export interface Invalidation {
  kind: InvalidationKind;
  key: string;
}

export const INVALIDATION_CHANNEL = 'gateway_cache_invalidation';

type Listener = (invalidation: Invalidation) => void;

/**
 * Tells every cache that a record changed: at once in this process, and through NOTIFY to the other
 * gateway instances sharing the database (each of which LISTENs through {@link InvalidationBus.listen}).
 */
export class InvalidationBus {
  readonly #sql: Sql;
  readonly #notifyPeers: boolean;
  readonly #listeners = new Set<Listener>();
  #unlisten: (() => Promise<void>) | null = null;

  constructor(sql: Sql, options: { notifyPeers: boolean }) {
    this.#sql = sql;
    this.#notifyPeers = options.notifyPeers;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Call after the change is committed. */
  async publish(kind: InvalidationKind, key: string): Promise<void> {
    this.#deliver({ kind, key });
    if (this.#notifyPeers) {
      await this.#sql`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify({ kind, key })})`;
    }
  }

  /** Receives the other instances' invalidations (and, harmlessly, this one's own echo). */
  async listen(): Promise<void> {
    if (!this.#notifyPeers || this.#unlisten !== null) return;
    const subscription = await this.#sql.listen(
      INVALIDATION_CHANNEL,
      (payload) => {
        const parsed = parseInvalidation(payload);
        if (parsed !== null) this.#deliver(parsed);
      },
      // A reconnected LISTEN may have missed notifications: drop everything cached.
      () => this.#deliver({ kind: 'credential', key: '*' }),
    );
    this.#unlisten = subscription.unlisten;
  }

  async close(): Promise<void> {
    await this.#unlisten?.();
    this.#unlisten = null;
    this.#listeners.clear();
  }

  #deliver(invalidation: Invalidation): void {
    for (const listener of this.#listeners) listener(invalidation);
  }
}

function parseInvalidation(payload: string): Invalidation | null {
  try {
    const value = JSON.parse(payload) as Partial<Invalidation>;
    if (
      (value.kind === 'credential' || value.kind === 'bucket' || value.kind === 'organisation') &&
      typeof value.key === 'string'
    ) {
      return { kind: value.kind, key: value.key };
    }
  } catch {
    // Not ours; ignore.
  }
  return null;
}
