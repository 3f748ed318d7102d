/** The S3 clients `credentials create --print` writes settings for. */
export const CLIENT_SETTINGS_FORMATS = ['env', 'aws-profile', 'rclone', 's3cmd'] as const;
export type ClientSettingsFormat = (typeof CLIENT_SETTINGS_FORMATS)[number];

export interface StorageKeyForClients {
  accessKeyId: string;
  secret: string;
  /** The storage endpoint, e.g. http://127.0.0.1:9000 */
  storageUrl: string;
  region: string;
  /** The aws profile's or rclone remote's name. */
  name: string;
}

export interface ClientSettings {
  /** Exactly what goes into the file (or the shell): stdout, so that `>> ~/.aws/config` works. */
  text: string;
  /** Where it goes and how to use it, for people: stderr. */
  hint: string;
}

/**
 * Settings a person pastes into their client. Path-style addressing throughout: it works with any
 * storage URL, while virtual-hosted buckets need GATEWAY_S3_DOMAIN and wildcard DNS.
 */
export function clientSettings(format: ClientSettingsFormat, key: StorageKeyForClients): ClientSettings {
  const storage = new URL(key.storageUrl);
  switch (format) {
    case 'env':
      return {
        text: [
          `export AWS_ACCESS_KEY_ID=${shellQuote(key.accessKeyId)}`,
          `export AWS_SECRET_ACCESS_KEY=${shellQuote(key.secret)}`,
          `export AWS_REGION=${shellQuote(key.region)}`,
          `export AWS_DEFAULT_REGION=${shellQuote(key.region)}`,
          `export AWS_ENDPOINT_URL=${shellQuote(key.storageUrl)}`,
          '',
        ].join('\n'),
        hint:
          'Paste into your shell (or eval "$(s3gw ... --print env)"). aws-cli before 2.13 ignores ' +
          `AWS_ENDPOINT_URL: give --endpoint-url ${key.storageUrl}. The environment cannot ask for ` +
          'path-style addressing: with a host name endpoint, use --print aws-profile unless the gateway ' +
          'serves bucket host names (GATEWAY_S3_DOMAIN).',
      };
    case 'aws-profile':
      return {
        text: [
          `[profile ${key.name}]`,
          `aws_access_key_id = ${key.accessKeyId}`,
          `aws_secret_access_key = ${key.secret}`,
          `region = ${key.region}`,
          `endpoint_url = ${key.storageUrl}`,
          's3 =',
          '  addressing_style = path',
          '',
        ].join('\n'),
        hint:
          `Append to ~/.aws/config, then: aws --profile ${key.name} s3 ls. aws-cli before 2.13 ignores ` +
          `endpoint_url: give --endpoint-url ${key.storageUrl}.`,
      };
    case 'rclone':
      return {
        text: [
          `[${key.name}]`,
          'type = s3',
          'provider = Other',
          // The keys below, not the environment or an instance role.
          'env_auth = false',
          `access_key_id = ${key.accessKeyId}`,
          `secret_access_key = ${key.secret}`,
          `endpoint = ${key.storageUrl}`,
          `region = ${key.region}`,
          'force_path_style = true',
          // Buckets are created through the control plane; rclone's own CreateBucket is refused.
          'no_check_bucket = true',
          '',
        ].join('\n'),
        hint: `Append to ~/.config/rclone/rclone.conf, then: rclone ls ${key.name}:<bucket>`,
      };
    case 's3cmd':
      return {
        text: [
          '[default]',
          `access_key = ${key.accessKeyId}`,
          `secret_key = ${key.secret}`,
          `host_base = ${storage.host}`,
          `host_bucket = ${storage.host}`,
          `bucket_location = ${key.region}`,
          `use_https = ${storage.protocol === 'https:' ? 'True' : 'False'}`,
          // The storage endpoint verifies SigV4 only.
          'signature_v2 = False',
          '',
        ].join('\n'),
        hint: `Save as a file, e.g. ~/.s3cfg-${key.name}, then: s3cmd -c ~/.s3cfg-${key.name} ls s3://<bucket>`,
      };
  }
}

/** A name usable as an aws profile or rclone remote: letters, digits, "-" and "_". */
export function clientProfileName(credentialName: string): string {
  const cleaned = credentialName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return cleaned === '' ? 's3gw' : cleaned;
}

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
