import { z } from 'zod';
import { MAX_CLOCK_SKEW_SECONDS } from '../protocol/limits.js';
import { listenAddressesClash } from './addresses.js';

/** host:port with a numeric port; an empty host means all interfaces. */
const listenAddress = z.string().refine((value) => {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s]*):(\d{1,5})$/.exec(value);
  return match !== null && Number(match[2]) <= 65535;
}, 'expected host:port with a port from 0 to 65535, e.g. 127.0.0.1:9000');

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });

const positiveInt = z.number().int().positive();

/** A 32-byte key given as 64 hex characters or as base64. */
const masterKey = z.string().refine((value) => decodeMasterKey(value) !== null, {
  message: 'expected 32 bytes as 64 hex characters or base64',
});

export function decodeMasterKey(value: string): Buffer | null {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed, 'base64');
    if (bytes.length === 32) return bytes;
  }
  return null;
}

export const configSchema = z
  .object({
    mode: z.enum(['development', 'production']),
    dataDir: z.string().min(1),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    listen: z.object({ s3: listenAddress, control: listenAddress, metrics: listenAddress }),
    database: z.object({
      url: z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
        .nullable(),
      poolSize: positiveInt,
    }),
    backend: z.object({
      url: httpUrl.nullable(),
      accessKeyId: z.string().min(1).nullable(),
      secretAccessKey: z.string().min(1).nullable(),
      region: z.string().min(1),
      timeoutSeconds: positiveInt,
    }),
    s3: z.object({
      domain: z.string().regex(/^[a-z0-9.-]+$/, 'expected a lower-case DNS name'),
      publicUrl: httpUrl.nullable(),
      regions: z.array(z.string().min(1)).min(1),
      /** Stricter than the spec's fifteen minutes if the operator wants, never looser. */
      maxSkewSeconds: positiveInt.max(
        MAX_CLOCK_SKEW_SECONDS,
        `at most ${MAX_CLOCK_SKEW_SECONDS} (the fifteen minutes of clock skew the S3 protocol allows)`,
      ),
      botProtection: z.enum(['anonymous', 'strict', 'off']),
      tlsCertFile: z.string().min(1).nullable(),
      tlsKeyFile: z.string().min(1).nullable(),
      /** Processes serving the storage endpoint; null: one per available core in production, else 1. */
      workers: z.number().int().min(1).max(256).nullable(),
      /** How long an upload body may stay silent before it is refused with RequestTimeout. */
      bodyIdleTimeoutMs: positiveInt,
    }),
    control: z.object({
      publicUrl: httpUrl.nullable(),
      accessTokenTtlSeconds: positiveInt,
      refreshTokenTtlSeconds: positiveInt,
      cookieSecure: z.enum(['auto', 'always', 'never']),
      jwtSecret: z.string().min(32, 'must be at least 32 characters').nullable(),
      loginRateLimitPerMinute: positiveInt,
      /** Addresses or CIDRs (or express's names: loopback, uniquelocal) whose X-Forwarded-For is believed. */
      trustedProxies: z.array(z.string().min(1)),
      tlsCertFile: z.string().min(1).nullable(),
      tlsKeyFile: z.string().min(1).nullable(),
    }),
    security: z.object({ masterKey: masterKey.nullable() }),
    metrics: z.object({
      /** Organisations with a series of their own in the per-organisation metrics; later ones share "_other". */
      maxOrganisationLabels: z.number().int().min(0).max(10_000),
    }),
    cache: z.object({
      ttlSeconds: positiveInt,
      maxEntries: positiveInt,
      /** How long cached credentials, buckets and organisations keep serving once the database stops answering. */
      staleIfErrorSeconds: z.number().int().min(0),
    }),
    admin: z.object({
      email: z.string().regex(/^[^@\s]+@[^@\s]+$/, 'expected an e-mail address'),
      password: z.string().min(12, 'must be at least 12 characters').nullable(),
    }),
    shutdownGraceSeconds: positiveInt,
    /** On shutdown, how long readiness answers 503 while the listeners still accept, before they stop. */
    shutdownDrainSeconds: z.number().int().min(0).max(3600),
  })
  .superRefine((config, ctx) => {
    const backendParts = [config.backend.url, config.backend.accessKeyId, config.backend.secretAccessKey];
    const given = backendParts.filter((part) => part !== null).length;
    if (given !== 0 && given !== 3) {
      ctx.addIssue({
        code: 'custom',
        path: ['backend', 'url'],
        message: 'the backend URL, access key id and secret access key must be set together',
      });
    }
    if (config.mode === 'production') {
      if (config.security.masterKey === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['security', 'masterKey'],
          message: 'is required in production mode',
        });
      }
      if (config.control.jwtSecret === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['control', 'jwtSecret'],
          message: 'is required in production mode',
        });
      }
      if (config.database.url === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['database', 'url'],
          message: 'is required in production mode',
        });
      }
      if (given === 0) {
        ctx.addIssue({ code: 'custom', path: ['backend', 'url'], message: 'is required in production mode' });
      }
    }
    const listeners = ['s3', 'control', 'metrics'] as const;
    listeners.forEach((later, index) => {
      for (const earlier of listeners.slice(0, index)) {
        if (listenAddressesClash(config.listen[earlier], config.listen[later])) {
          ctx.addIssue({
            code: 'custom',
            path: ['listen', later],
            message: `must not bind the same address as ${LISTEN_VARIABLES[earlier]} (${config.listen[earlier]}); the storage endpoint, control plane and metrics each need their own port`,
          });
        }
      }
    });
    for (const plane of ['s3', 'control'] as const) {
      if ((config[plane].tlsCertFile === null) !== (config[plane].tlsKeyFile === null)) {
        ctx.addIssue({
          code: 'custom',
          path: [plane, 'tlsCertFile'],
          message: 'the TLS certificate and key files must be set together',
        });
      }
    }
  });

export type GatewayConfig = z.infer<typeof configSchema>;

/**
 * How many processes serve the storage endpoint: GATEWAY_WORKERS, else one per core the process
 * may run on in production (os.availableParallelism() follows the CPU affinity) and one in local
 * development, where a single process is easier to follow and the embedded database is shared.
 */
export function storageWorkerCount(
  config: Pick<GatewayConfig, 'mode'> & { s3: Pick<GatewayConfig['s3'], 'workers'> },
  cores: number,
): number {
  return config.s3.workers ?? (config.mode === 'production' ? Math.max(1, cores) : 1);
}

/**
 * Whether the storage endpoint runs in worker processes of its own. Always in production: there
 * the control plane's work (password hashing, JSON) never delays a storage request, and workers
 * run with memory settings of their own (cluster/supervisor.ts). In development only when more
 * than one is asked for; a single one then runs in the main process.
 */
export function storageRunsInWorkers(config: Pick<GatewayConfig, 'mode'>, workers: number): boolean {
  return config.mode === 'production' || workers > 1;
}

const LISTEN_VARIABLES = {
  s3: 'GATEWAY_S3_LISTEN',
  control: 'GATEWAY_CONTROL_LISTEN',
  metrics: 'GATEWAY_METRICS_LISTEN',
} as const;

type Kind = 'string' | 'int' | 'list';

/** Every environment variable the gateway reads, and the setting it overrides. */
export const ENVIRONMENT_VARIABLES: ReadonlyArray<{ name: string; path: string; kind: Kind }> = [
  { name: 'GATEWAY_MODE', path: 'mode', kind: 'string' },
  { name: 'GATEWAY_DATA_DIR', path: 'dataDir', kind: 'string' },
  { name: 'GATEWAY_LOG_LEVEL', path: 'logLevel', kind: 'string' },
  { name: 'GATEWAY_S3_LISTEN', path: 'listen.s3', kind: 'string' },
  { name: 'GATEWAY_CONTROL_LISTEN', path: 'listen.control', kind: 'string' },
  { name: 'GATEWAY_METRICS_LISTEN', path: 'listen.metrics', kind: 'string' },
  { name: 'DATABASE_URL', path: 'database.url', kind: 'string' },
  { name: 'GATEWAY_DATABASE_POOL_SIZE', path: 'database.poolSize', kind: 'int' },
  { name: 'GATEWAY_BACKEND_URL', path: 'backend.url', kind: 'string' },
  { name: 'GATEWAY_BACKEND_ACCESS_KEY_ID', path: 'backend.accessKeyId', kind: 'string' },
  { name: 'GATEWAY_BACKEND_SECRET_ACCESS_KEY', path: 'backend.secretAccessKey', kind: 'string' },
  { name: 'GATEWAY_BACKEND_REGION', path: 'backend.region', kind: 'string' },
  { name: 'GATEWAY_BACKEND_TIMEOUT_SECONDS', path: 'backend.timeoutSeconds', kind: 'int' },
  { name: 'GATEWAY_S3_DOMAIN', path: 's3.domain', kind: 'string' },
  { name: 'GATEWAY_S3_PUBLIC_URL', path: 's3.publicUrl', kind: 'string' },
  { name: 'GATEWAY_S3_REGIONS', path: 's3.regions', kind: 'list' },
  { name: 'GATEWAY_S3_MAX_SKEW_SECONDS', path: 's3.maxSkewSeconds', kind: 'int' },
  { name: 'GATEWAY_BOT_PROTECTION', path: 's3.botProtection', kind: 'string' },
  { name: 'GATEWAY_S3_TLS_CERT_FILE', path: 's3.tlsCertFile', kind: 'string' },
  { name: 'GATEWAY_S3_TLS_KEY_FILE', path: 's3.tlsKeyFile', kind: 'string' },
  { name: 'GATEWAY_WORKERS', path: 's3.workers', kind: 'int' },
  { name: 'GATEWAY_S3_BODY_IDLE_TIMEOUT_MS', path: 's3.bodyIdleTimeoutMs', kind: 'int' },
  { name: 'GATEWAY_CONTROL_PUBLIC_URL', path: 'control.publicUrl', kind: 'string' },
  { name: 'GATEWAY_ACCESS_TOKEN_TTL_SECONDS', path: 'control.accessTokenTtlSeconds', kind: 'int' },
  { name: 'GATEWAY_REFRESH_TOKEN_TTL_SECONDS', path: 'control.refreshTokenTtlSeconds', kind: 'int' },
  { name: 'GATEWAY_COOKIE_SECURE', path: 'control.cookieSecure', kind: 'string' },
  { name: 'GATEWAY_JWT_SECRET', path: 'control.jwtSecret', kind: 'string' },
  { name: 'GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE', path: 'control.loginRateLimitPerMinute', kind: 'int' },
  { name: 'GATEWAY_TRUSTED_PROXIES', path: 'control.trustedProxies', kind: 'list' },
  { name: 'GATEWAY_CONTROL_TLS_CERT_FILE', path: 'control.tlsCertFile', kind: 'string' },
  { name: 'GATEWAY_CONTROL_TLS_KEY_FILE', path: 'control.tlsKeyFile', kind: 'string' },
  { name: 'GATEWAY_MASTER_KEY', path: 'security.masterKey', kind: 'string' },
  { name: 'GATEWAY_METRICS_MAX_ORGANISATIONS', path: 'metrics.maxOrganisationLabels', kind: 'int' },
  { name: 'GATEWAY_CACHE_TTL_SECONDS', path: 'cache.ttlSeconds', kind: 'int' },
  { name: 'GATEWAY_CACHE_MAX_ENTRIES', path: 'cache.maxEntries', kind: 'int' },
  { name: 'GATEWAY_CACHE_STALE_IF_ERROR_SECONDS', path: 'cache.staleIfErrorSeconds', kind: 'int' },
  { name: 'GATEWAY_ADMIN_EMAIL', path: 'admin.email', kind: 'string' },
  { name: 'GATEWAY_ADMIN_PASSWORD', path: 'admin.password', kind: 'string' },
  { name: 'GATEWAY_SHUTDOWN_GRACE_SECONDS', path: 'shutdownGraceSeconds', kind: 'int' },
  { name: 'GATEWAY_SHUTDOWN_DRAIN_SECONDS', path: 'shutdownDrainSeconds', kind: 'int' },
];
