import type { Sql } from '../../store/database.js';
import type { AuditLogStore } from '../../store/audit-log.js';

/** Who acted: a person and the address they came from. */
export interface AuditActor {
  userId: string | null;
  email: string | null;
  sourceAddress: string | null;
}

export interface AuditEvent {
  /** The organisation whose log shows it. */
  organisationId: string | null;
  /** e.g. "credential.create"; a fixed vocabulary, see the services. */
  action: string;
  target: string | null;
  /** Names, roles, scopes: never a secret, password or token. */
  details?: Record<string, unknown>;
}

/** Every control-plane write goes through this into the audit log. */
export class AuditRecorder {
  readonly #store: AuditLogStore;

  constructor(store: AuditLogStore) {
    this.#store = store;
  }

  async record(actor: AuditActor, event: AuditEvent, sql?: Sql): Promise<void> {
    await this.#store.append(
      {
        organisationId: event.organisationId,
        actorUserId: actor.userId,
        actorEmail: actor.email,
        action: event.action,
        target: event.target,
        sourceAddress: actor.sourceAddress,
        details: event.details ?? {},
      },
      sql,
    );
  }
}
