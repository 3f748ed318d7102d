import { randomUUID } from 'node:crypto';
import type { Sql } from './database.js';

/** The kinds of record the caches hold and the bus invalidates. */
export const INVALIDATION_KINDS = ['credential', 'bucket', 'organisation'] as const;
export type InvalidationKind = (typeof INVALIDATION_KINDS)[number];

export interface Invalidation {
  kind: InvalidationKind;
  key: string;
}

export const INVALIDATION_CHANNEL = 'gateway_cache_invalidation';

/** What goes over NOTIFY: the invalidation and the bus that sent it (absent from older gateways). */
interface Notification extends Invalidation {
  origin: string | null;
}

type Listener = (invalidation: Invalidation) => void;

/**
 * Tells every cache that a record changed: at once in this process, and through NOTIFY to the other
 * gateway instances sharing the database (each of which LISTENs through {@link InvalidationBus.listen}).
 * Every notification carries the sending bus's id, so a bus ignores the echo of its own NOTIFY: each
 * change is applied (and counted) once per instance.
 */
export class InvalidationBus {
  /** Identifies this bus's notifications among those of every instance on the channel. */
  readonly origin = randomUUID();
  readonly #sql: Sql;
  readonly #notifyPeers: boolean;
  readonly #listeners = new Set<Listener>();
  #unlisten: (() => Promise<void>) | null = null;

  readonly #onNotifyError: (error: unknown, invalidation: Invalidation) => void;

  constructor(
    sql: Sql,
    options: {
      notifyPeers: boolean;
      /** A NOTIFY that failed; the change itself is committed, so peers catch up when their entries expire. */
      onNotifyError?: (error: unknown, invalidation: Invalidation) => void;
    },
  ) {
    this.#sql = sql;
    this.#notifyPeers = options.notifyPeers;
    this.#onNotifyError =
      options.onNotifyError ??
      ((error, invalidation) =>
        process.emitWarning(`could not notify peers of a ${invalidation.kind} change: ${String(error)}`));
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Call after the change is committed. Never rejects: the write it reports has happened, and a
   * caller must not take a failed notification for a failed write (and undo or repeat it).
   */
  async publish(kind: InvalidationKind, key: string): Promise<void> {
    this.#deliver({ kind, key });
    if (!this.#notifyPeers) return;
    const notification: Notification = { kind, key, origin: this.origin };
    try {
      await this.#sql`SELECT pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(notification)})`;
    } catch (error) {
      this.#onNotifyError(error, { kind, key });
    }
  }

  /**
   * An invalidation another process of this instance published, relayed to this one (a storage
   * worker's, when the database cannot carry NOTIFY between them): applied here, sent nowhere.
   */
  receive(invalidation: Invalidation): void {
    this.#deliver(invalidation);
  }

  /** Receives the other instances' invalidations; this one's own come back too and are skipped. */
  async listen(): Promise<void> {
    if (!this.#notifyPeers || this.#unlisten !== null) return;
    const subscription = await this.#sql.listen(
      INVALIDATION_CHANNEL,
      (payload) => {
        const parsed = parseNotification(payload);
        if (parsed !== null && parsed.origin !== this.origin) {
          this.#deliver({ kind: parsed.kind, key: parsed.key });
        }
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

function parseNotification(payload: string): Notification | null {
  try {
    const value = JSON.parse(payload) as Partial<Notification>;
    if (INVALIDATION_KINDS.includes(value.kind as InvalidationKind) && typeof value.key === 'string') {
      // Without an origin (a gateway from before it was added) the notification is someone else's.
      const origin = typeof value.origin === 'string' ? value.origin : null;
      return { kind: value.kind as InvalidationKind, key: value.key, origin };
    }
  } catch {
    // Not ours; ignore.
  }
  return null;
}
