import type { RunningGateway } from './runtime.js';

/**
 * The first-start banner, on stdout rather than in the structured log: it is the one place the
 * generated admin password and the bootstrap secret are shown, and the log must never hold them.
 */
export function printWelcome(gateway: RunningGateway): void {
  const { urls } = gateway;
  const lines = [
    '',
    `  S3 gateway is running.`,
    `    storage endpoint : ${urls.s3}`,
    `    control plane    : ${urls.control}/v1   (API docs: ${urls.control}/docs)`,
    `    metrics          : ${urls.metrics}/metrics`,
  ];
  const created = gateway.bootstrap.created;
  if (created !== null) {
    lines.push(
      '',
      '  First start: a platform admin, the organisation "' +
        created.organisationName +
        '" and a storage credential were created.',
      `    log in       : curl -s -X POST ${urls.control}/v1/auth/login -H 'content-type: application/json' \\`,
      `                     -d '{"email":"${created.adminEmail}","password":"${created.generatedPassword ?? '<GATEWAY_ADMIN_PASSWORD>'}"}'`,
      created.generatedPassword === null ? '' : '    (the generated password is shown only now; keep it)',
      '    aws-cli      :',
      `      export AWS_ACCESS_KEY_ID=${created.credential.accessKeyId}`,
      `      export AWS_SECRET_ACCESS_KEY=${created.credential.secret}`,
      `      export AWS_DEFAULT_REGION=us-east-1`,
      `      aws --endpoint-url ${urls.s3} s3 ls`,
      '    (the secret is shown only now; create more credentials through the control plane)',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
