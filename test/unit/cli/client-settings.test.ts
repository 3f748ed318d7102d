import { describe, expect, it } from 'vitest';
import { clientProfileName, clientSettings } from '../../../src/cli/client-settings.js';

const KEY = {
  accessKeyId: 'GWK1ABCDEFGHIJKLMNOP',
  secret: "abc/def+ghi'jkl",
  storageUrl: 'https://s3.example.test',
  region: 'eu-central-1',
  name: 'photos-reader',
};

describe('credentials create --print', () => {
  it('env: exports a shell evaluates back to the same values', () => {
    const settings = clientSettings('env', KEY);
    expect(settings.text).toBe(
      [
        'export AWS_ACCESS_KEY_ID=GWK1ABCDEFGHIJKLMNOP',
        "export AWS_SECRET_ACCESS_KEY='abc/def+ghi'\\''jkl'",
        'export AWS_REGION=eu-central-1',
        'export AWS_DEFAULT_REGION=eu-central-1',
        'export AWS_ENDPOINT_URL=https://s3.example.test',
        '',
      ].join('\n'),
    );
    expect(settings.hint).toBe(
      'Paste into your shell (or eval "$(s3gw ... --print env)"). aws-cli before 2.13 ignores ' +
        'AWS_ENDPOINT_URL: give --endpoint-url https://s3.example.test. The environment cannot ask for ' +
        'path-style addressing: with a host name endpoint, use --print aws-profile unless the gateway ' +
        'serves bucket host names (GATEWAY_S3_DOMAIN).',
    );
  });

  it('aws-profile: a ~/.aws/config profile with the endpoint and path-style addressing', () => {
    const settings = clientSettings('aws-profile', KEY);
    expect(settings.text).toBe(
      [
        '[profile photos-reader]',
        'aws_access_key_id = GWK1ABCDEFGHIJKLMNOP',
        "aws_secret_access_key = abc/def+ghi'jkl",
        'region = eu-central-1',
        'endpoint_url = https://s3.example.test',
        's3 =',
        '  addressing_style = path',
        '',
      ].join('\n'),
    );
    expect(settings.hint).toBe(
      'Append to ~/.aws/config, then: aws --profile photos-reader s3 ls. aws-cli before 2.13 ignores ' +
        'endpoint_url: give --endpoint-url https://s3.example.test.',
    );
  });

  it('rclone: an s3 remote with these keys only, path-style addressing, that does not create buckets', () => {
    const settings = clientSettings('rclone', KEY);
    expect(settings.text).toBe(
      [
        '[photos-reader]',
        'type = s3',
        'provider = Other',
        'env_auth = false',
        'access_key_id = GWK1ABCDEFGHIJKLMNOP',
        "secret_access_key = abc/def+ghi'jkl",
        'endpoint = https://s3.example.test',
        'region = eu-central-1',
        'force_path_style = true',
        'no_check_bucket = true',
        '',
      ].join('\n'),
    );
    expect(settings.hint).toBe(
      'Append to ~/.config/rclone/rclone.conf, then: rclone ls photos-reader:<bucket>',
    );
  });

  it('s3cmd: host and TLS from the storage URL, path-style, SigV4', () => {
    const plain = clientSettings('s3cmd', { ...KEY, storageUrl: 'http://127.0.0.1:9000' });
    expect(plain.text).toBe(
      [
        '[default]',
        'access_key = GWK1ABCDEFGHIJKLMNOP',
        "secret_key = abc/def+ghi'jkl",
        'host_base = 127.0.0.1:9000',
        'host_bucket = 127.0.0.1:9000',
        'bucket_location = eu-central-1',
        'use_https = False',
        'signature_v2 = False',
        '',
      ].join('\n'),
    );
    expect(plain.hint).toBe(
      'Save as a file, e.g. ~/.s3cfg-photos-reader, then: s3cmd -c ~/.s3cfg-photos-reader ls s3://<bucket>',
    );
    const tls = clientSettings('s3cmd', KEY).text.split('\n');
    expect(tls).toContain('host_base = s3.example.test');
    expect(tls).toContain('use_https = True');
  });

  it('names profiles after the credential', () => {
    expect(clientProfileName('Photo reader (CI)')).toBe('photo-reader-ci');
    expect(clientProfileName('***')).toBe('s3gw');
  });
});
