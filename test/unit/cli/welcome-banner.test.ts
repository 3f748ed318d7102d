import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import type { RunningGateway } from '../../../src/runtime.js';
import { printWelcome } from '../../../src/welcome.js';

const URLS = {
  s3: 'http://127.0.0.1:9000',
  control: 'http://127.0.0.1:9001',
  metrics: 'http://127.0.0.1:9464',
};
const FIRST_START = {
  adminEmail: 'admin@localhost',
  generatedPassword: 'generated-password-0123',
  organisationName: 'default',
  credential: { accessKeyId: 'GWK1BOOTSTRAPKEY0000', secret: 'b'.repeat(40) },
};

/** What `npm start` prints once the gateway listens, in local mode. */
function bannerOf(created: typeof FIRST_START | null, env: Record<string, string> = {}): string {
  let printed = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed += String(chunk);
    return true;
  });
  const gateway = {
    urls: URLS,
    context: { config: loadConfig({ GATEWAY_MODE: 'development', ...env }) },
    bootstrap: { created },
  } as unknown as RunningGateway;
  printWelcome(gateway);
  vi.restoreAllMocks();
  return printed;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the welcome banner of a local start', () => {
  it('on the first start: the admin, then s3gw commands for the first bucket and key, ~/.aws created first', () => {
    const banner = bannerOf(FIRST_START);
    expect(banner).toContain(
      [
        '    admin        : admin@localhost, password generated-password-0123',
        '                   (the generated password is shown only now; keep it)',
        '    log in       : npx s3gw login --url http://127.0.0.1:9001 --storage-url http://127.0.0.1:9000 --email admin@localhost',
        '    first bucket : npx s3gw buckets create my-bucket',
        '    aws config   : mkdir -p ~/.aws',
        '    first key    : npx s3gw credentials create my-laptop --bucket my-bucket --read-write --print aws-profile >> ~/.aws/config',
        '    use it       : aws --profile my-laptop s3 cp ./notes.txt s3://my-bucket/',
        '                   (aws-cli before 2.13 also needs --endpoint-url http://127.0.0.1:9000)',
      ].join('\n'),
    );
    expect(banner).not.toContain('curl');
  });

  it('on every later start: how to log in with s3gw, as the configured admin', () => {
    const banner = bannerOf(null, { GATEWAY_ADMIN_EMAIL: 'ops@example.test' });
    expect(banner).toBe(
      [
        '',
        '  S3 gateway is running.',
        '    storage endpoint : http://127.0.0.1:9000',
        '    control plane    : http://127.0.0.1:9001/v1   (API docs: http://127.0.0.1:9001/docs)',
        '    metrics          : http://127.0.0.1:9464/metrics',
        '',
        '  Command line, from this checkout:',
        '    log in       : npx s3gw login --url http://127.0.0.1:9001 --storage-url http://127.0.0.1:9000 --email ops@example.test',
        '    then         : npx s3gw --help',
        '',
        '',
      ].join('\n'),
    );
  });

  it('names the signing region when it is not us-east-1', () => {
    expect(bannerOf(null, { GATEWAY_S3_REGIONS: 'eu-central-1' })).toContain(
      '--storage-url http://127.0.0.1:9000 --region eu-central-1 --email admin@localhost\n',
    );
  });
});
