import { describe, expect, it } from 'vitest';
import { advertisedControlUrl } from '../../../src/config/addresses.js';

function settings(listen: string, publicUrl: string | null = null, tlsCertFile: string | null = null) {
  return {
    listen: { s3: '127.0.0.1:9000', control: listen, metrics: '127.0.0.1:9464' },
    control: { publicUrl, tlsCertFile },
  };
}

describe('advertisedControlUrl (where refusals point clients for the control plane)', () => {
  it('is the public URL when one is set, without a trailing slash', () => {
    expect(advertisedControlUrl(settings('0.0.0.0:9001', 'https://admin.example.com/') as never)).toBe(
      'https://admin.example.com',
    );
  });

  it('is the listen address when it names one host and a fixed port', () => {
    expect(advertisedControlUrl(settings('127.0.0.1:9001') as never)).toBe('http://127.0.0.1:9001');
    expect(advertisedControlUrl(settings('[::1]:9001', null, '/tls/cert.pem') as never)).toBe(
      'https://[::1]:9001',
    );
  });

  it('is unknown for a wildcard address or a port picked at start', () => {
    expect(advertisedControlUrl(settings('0.0.0.0:9001') as never)).toBeNull();
    expect(advertisedControlUrl(settings(':9001') as never)).toBeNull();
    expect(advertisedControlUrl(settings('127.0.0.1:0') as never)).toBeNull();
  });
});
