import type { Store } from '../../src/store/index.js';

/** Shapes of things that must never reach a log line. */
const FORBIDDEN_SHAPES: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'a JWT', pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/ },
  { name: 'a SigV4 signature', pattern: /Signature=[0-9a-f]{64}/i },
  { name: 'a presigned signature', pattern: /X-Amz-Signature=[0-9a-f]{64}/i },
  // Refresh, invitation and reset tokens are 32 random bytes in base64url.
  { name: 'an opaque token', pattern: /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/ },
  {
    name: 'an unredacted password field',
    pattern: /"(password|newPassword|currentPassword)":"(?!\[redacted\])/,
  },
  { name: 'an unredacted secret field', pattern: /"(secret|secretAccessKey)":"(?!\[redacted\])/ },
];

/**
 * Every secret the gateway knows at the end of a test (each storage credential's current and previous
 * secret, the admin password) plus the shapes above, looked for in every log line it wrote.
 * Returns the findings; empty means clean.
 */
export async function findSecretsInLogs(
  logs: string[],
  store: Store,
  knownSecrets: string[],
): Promise<string[]> {
  const secrets = new Set(knownSecrets.filter((secret) => secret.length >= 8));
  const rows = await store.db.sql<{ access_key_id: string }[]>`SELECT access_key_id FROM credentials`;
  for (const row of rows) {
    const credential = await store.credentials.find(row.access_key_id);
    if (credential?.secret) secrets.add(credential.secret);
    if (credential?.previousSecret) secrets.add(credential.previousSecret);
  }
  const findings: string[] = [];
  logs.forEach((line, index) => {
    for (const secret of secrets) {
      if (line.includes(secret)) findings.push(`log line ${index + 1} contains a known secret`);
    }
    for (const shape of FORBIDDEN_SHAPES) {
      if (shape.pattern.test(line))
        findings.push(`log line ${index + 1} contains ${shape.name}: ${line.slice(0, 300)}`);
    }
  });
  return findings;
}
