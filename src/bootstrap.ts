import { randomBytes } from 'node:crypto';
import { normaliseScope } from './access/scope.js';
import type { GatewayConfig } from './config/schema.js';
import { generateAccessKeyId, generateSecretAccessKey } from './security/ids.js';
import { hashPassword } from './security/passwords.js';
import type { Store } from './store/index.js';
import { EmailTakenError } from './store/users.js';
import { inOneTransaction } from './store/transaction.js';

export const FIRST_ORGANISATION_NAME = 'default';

export interface BootstrapResult {
  /** Null when the platform admin already existed (a restart). */
  created: null | {
    adminEmail: string;
    /** Only when generated; a configured password is never echoed. */
    generatedPassword: string | null;
    organisationName: string;
    credential: { accessKeyId: string; secret: string };
  };
}

/**
 * First start: the platform admin (GATEWAY_ADMIN_EMAIL / GATEWAY_ADMIN_PASSWORD, or admin@localhost and
 * a generated password), a first organisation that it owns, and a read-write storage credential for it.
 * On every later start it changes nothing.
 */
export async function bootstrap(store: Store, config: GatewayConfig): Promise<BootstrapResult> {
  const email = config.admin.email;
  if ((await store.users.findByEmail(email)) !== null) return { created: null };

  const generatedPassword = config.admin.password === null ? randomBytes(15).toString('base64url') : null;
  const passwordHash = await hashPassword(config.admin.password ?? (generatedPassword as string));

  const credential = { accessKeyId: generateAccessKeyId(), secret: generateSecretAccessKey() };
  let organisationName: string;
  try {
    // All of it or nothing: a crash half-way must not leave an admin whom no later start completes.
    organisationName = await inOneTransaction(store, async (tx, changed) => {
      const admin = await store.users.create(
        { email, name: 'Platform admin', passwordHash, platformAdmin: true },
        tx,
      );
      const existing = await store.organisations.findByName(FIRST_ORGANISATION_NAME, tx);
      const organisation = existing ?? (await store.organisations.create(FIRST_ORGANISATION_NAME, tx));
      await store.users.addMembership(admin.id, organisation.id, 'owner', tx);
      await store.credentials.create(
        {
          ...credential,
          organisationId: organisation.id,
          name: 'bootstrap',
          scope: normaliseScope({ buckets: ['*'], level: 'read-write' }),
          expiresAt: null,
          createdBy: admin.id,
        },
        tx,
      );
      // A lookup of this id before it existed may be cached as unknown by a running instance.
      changed('credential', credential.accessKeyId);
      return organisation.name;
    });
  } catch (error) {
    // Two instances starting for the first time together: the other one bootstrapped.
    if (error instanceof EmailTakenError) {
      return { created: null };
    }
    throw error;
  }
  return {
    created: {
      adminEmail: email,
      generatedPassword,
      organisationName,
      credential,
    },
  };
}
