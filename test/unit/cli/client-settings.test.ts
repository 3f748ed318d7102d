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
    expect(clientSettings('env', KEY).text).toBe(
      [
        'export AWS_ACCESS_KEY_ID=GWK1ABCDEFGHIJKLMNOP',
        "export AWS_SECRET_ACCESS_KEY='abc/def+ghi'\\''jkl'",
        'export AWS_REGION=eu-central-1',
        'export AWS_DEFAULT_REGION=eu-central-1',
        'export AWS_ENDPOINT_URL=https://s3.example.test',
        '',
      ].join('\n'),
    );
  });

  it('rclone: an s3 remote with path-style addressing that does not create buckets', () => {
    const text = clientSettings('rclone', KEY).text;
    expect(text.split('\n')).toEqual(
      expect.arrayContaining([
        '[photos-reader]',
        'type = s3',
        'endpoint = https://s3.example.test',
        'region = eu-central-1',
        'force_path_style = true',
        'no_check_bucket = true',
      ]),
    );
  });

  it('s3cmd: host and TLS from the storage URL, SigV4', () => {
    const text = clientSettings('s3cmd', { ...KEY, storageUrl: 'http://127.0.0.1:9000' }).text;
    expect(text.split('\n')).toEqual(
      expect.arrayContaining([
        'host_base = 127.0.0.1:9000',
        'host_bucket = 127.0.0.1:9000',
        'use_https = False',
        'signature_v2 = False',
        'bucket_location = eu-central-1',
      ]),
    );
  });

  it('names profiles after the credential', () => {
    expect(clientProfileName('Photo reader (CI)')).toBe('photo-reader-ci');
    expect(clientProfileName('***')).toBe('s3gw');
  });
});
