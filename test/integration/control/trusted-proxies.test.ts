import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { ControlClient } from '../../support/control-plane.js';

let gw: TestGateway;

/** Logs in from a given loopback address (Linux routes all of 127.0.0.0/8 to lo), with X-Forwarded-For. */
function loginFrom(localAddress: string, forwardedFor: string): Promise<string> {
  const body = JSON.stringify({ email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${gw.controlUrl}/v1/auth/login`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve((JSON.parse(text) as { access_token: string }).access_token));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_TRUSTED_PROXIES: '127.0.0.1' });
});
afterAll(async () => {
  await gw?.stop();
});

describe('GATEWAY_TRUSTED_PROXIES', () => {
  async function currentSessionAddress(token: string): Promise<string> {
    const sessions = await new ControlClient(gw.controlUrl, token).get('/v1/me/sessions');
    expect(sessions.status).toBe(200);
    const current = (sessions.body.items as { current: boolean; sourceAddress: string }[]).find(
      (session) => session.current,
    );
    return current?.sourceAddress ?? '';
  }

  it('takes the client address from X-Forwarded-For when the peer is a trusted proxy', async () => {
    const token = await loginFrom('127.0.0.1', '203.0.113.7');
    expect(await currentSessionAddress(token)).toBe('203.0.113.7');
  });

  it('ignores X-Forwarded-For from any other peer', async () => {
    const token = await loginFrom('127.0.0.2', '203.0.113.7');
    expect(await currentSessionAddress(token)).toBe('127.0.0.2');
  });
});
