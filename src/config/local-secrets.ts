import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { decodeMasterKey, type GatewayConfig } from './schema.js';

export interface RuntimeSecrets {
  masterKey: Buffer;
  jwtSecret: string;
  /** Which secrets were generated under the data directory rather than configured. */
  generated: string[];
}

function readOrCreate(file: string, create: () => string): { value: string; created: boolean } {
  if (existsSync(file)) return { value: readFileSync(file, 'utf8').trim(), created: false };
  mkdirSync(path.dirname(file), { recursive: true });
  const value = create();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return { value, created: true };
}

/**
 * The master key and the token-signing secret. Configured values win; in development mode missing
 * ones are generated once and kept under the data directory so that a restart can still decrypt
 * the secrets and verify the tokens it issued. Production mode never gets here without them
 * (the configuration is refused first).
 */
export function resolveSecrets(config: GatewayConfig): RuntimeSecrets {
  const generated: string[] = [];
  let masterKey = config.security.masterKey === null ? null : decodeMasterKey(config.security.masterKey);
  if (masterKey === null) {
    const file = path.join(config.dataDir, 'secrets', 'master.key');
    const result = readOrCreate(file, () => randomBytes(32).toString('hex'));
    masterKey = decodeMasterKey(result.value);
    if (masterKey === null) throw new Error(`${file} does not hold a 32-byte key`);
    if (result.created) generated.push(file);
  }
  let jwtSecret = config.control.jwtSecret;
  if (jwtSecret === null) {
    const file = path.join(config.dataDir, 'secrets', 'jwt.secret');
    const result = readOrCreate(file, () => randomBytes(48).toString('base64url'));
    jwtSecret = result.value;
    if (result.created) generated.push(file);
  }
  return { masterKey, jwtSecret, generated };
}
