import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BootstrapResult } from './bootstrap.js';
import type { RunningGateway } from './runtime.js';

/** Where a production gateway's first start leaves the credentials it created (mode 0600, once). */
export const FIRST_START_FILE = 'first-start-credentials.json';

type Created = NonNullable<BootstrapResult['created']>;

/**
 * A production first start never prints a secret (stdout ends in log aggregation): the generated
 * admin password and the first storage credential go once into a file only this user may read,
 * and the banner says where. Returns the file's path.
 */
export function writeFirstStartFile(dataDir: string, created: Created): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.resolve(dataDir, FIRST_START_FILE);
  const contents = {
    note: 'Created on the first start of this gateway. Keep what you need elsewhere, then delete this file.',
    admin: { email: created.adminEmail, password: created.generatedPassword },
    organisation: created.organisationName,
    storageCredential: {
      accessKeyId: created.credential.accessKeyId,
      secretAccessKey: created.credential.secret,
    },
  };
  // 'wx': never overwrite (a second gateway's first start must not replace the first one's file).
  writeFileSync(file, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

/**
 * The start-up banner, on stdout rather than in the structured log. In local development it is
 * where the generated admin password and the bootstrap secret are shown (the log never holds
 * them); in production they are written to a private file instead (writeFirstStartFile).
 */
export function printWelcome(gateway: RunningGateway): void {
  const { urls } = gateway;
  const { config } = gateway.context;
  const lines = [
    '',
    `  S3 gateway is running.`,
    `    storage endpoint : ${urls.s3}`,
    `    control plane    : ${urls.control}/v1   (API docs: ${urls.control}/docs)`,
    `    metrics          : ${urls.metrics}/metrics`,
  ];
  const created = gateway.bootstrap.created;
  if (created !== null && config.mode === 'production') {
    let where: string;
    try {
      where = `their credentials are in ${writeFirstStartFile(config.dataDir, created)} (readable by this user only); delete it once read.`;
    } catch (error) {
      where = `their credentials could not be written to ${config.dataDir} (${(error as Error).message}); reset the admin password with \`npm run admin -- reset-password\`.`;
    }
    lines.push(
      '',
      '  First start: a platform admin, the organisation "' +
        created.organisationName +
        '" and a storage credential were created.',
      `    ${where}`,
    );
  } else if (config.mode !== 'production') {
    // Local mode, every start: how to reach it with the command line (the first start says more).
    const region = config.s3.regions[0] ?? 'us-east-1';
    const regionOption = region === 'us-east-1' ? '' : ` --region ${region}`;
    const loginLine = `    log in       : npx s3gw login --url ${urls.control} --storage-url ${urls.s3}${regionOption} --email ${created?.adminEmail ?? config.admin.email}`;
    if (created === null) {
      lines.push('', '  Command line, from this checkout:', loginLine, '    then         : npx s3gw --help');
    } else {
      const password = created.generatedPassword ?? 'the one in GATEWAY_ADMIN_PASSWORD';
      lines.push(
        '',
        '  First start: a platform admin, the organisation "' +
          created.organisationName +
          '" and a storage credential were created.',
        `    admin        : ${created.adminEmail}, password ${password}`,
        ...(created.generatedPassword === null
          ? []
          : ['                   (the generated password is shown only now; keep it)']),
        loginLine,
        '    first bucket : npx s3gw buckets create my-bucket',
        '    aws config   : mkdir -p ~/.aws',
        '    first key    : npx s3gw credentials create my-laptop --bucket my-bucket --read-write --print aws-profile >> ~/.aws/config',
        '    use it       : aws --profile my-laptop s3 cp ./notes.txt s3://my-bucket/',
        `                   (aws-cli before 2.13 also needs --endpoint-url ${urls.s3})`,
        '    the bootstrap key, read-write on every bucket:',
        `      export AWS_ACCESS_KEY_ID=${created.credential.accessKeyId}`,
        `      export AWS_SECRET_ACCESS_KEY=${created.credential.secret}`,
        `      export AWS_DEFAULT_REGION=${region}`,
        `      aws --endpoint-url ${urls.s3} s3 ls`,
        '    (the secret is shown only now; create more credentials with npx s3gw credentials create)',
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
