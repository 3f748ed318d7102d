import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { ControlClient } from '../../support/control-plane.js';
import { expectProblem, expectRateLimited } from '../../support/problems.js';

let gw: TestGateway;

/** A login sent from another loopback address (Linux routes all of 127.0.0.0/8 to lo). */
function loginFrom(
  localAddress: string,
  email: string,
  password: string,
): Promise<{ status: number; code: string | undefined }> {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${gw.controlUrl}/v1/auth/login`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, code: (JSON.parse(text) as { code?: string }).code }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '3' });
});
afterAll(async () => {
  await gw?.stop();
});

describe('login rate limit', () => {
  it('answers 429 with Retry-After once an address has used its attempts, even with the right password', async () => {
    const anonymous = new ControlClient(gw.controlUrl);
    // Three attempts from this address, at three different accounts: only the address is at its limit.
    for (const email of ['one@example.test', 'two@example.test', TEST_ADMIN_EMAIL]) {
      const response = await anonymous.post('/v1/auth/login', { email, password: 'wrong password' });
      expectProblem(response, 401, 'invalid_credentials');
    }
    const limited = await anonymous.post('/v1/auth/login', {
      email: TEST_ADMIN_EMAIL,
      password: TEST_ADMIN_PASSWORD,
    });
    expectRateLimited(limited);
    expect(limited.headers.getSetCookie()).toEqual([]);

    const metrics = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/gateway_logins_total\{outcome="rate_limited"\} 1/);
    expect(metrics).toMatch(/gateway_logins_total\{outcome="failed"\} 3/);
  });

  it('limits an account whatever address the attempts come from', async () => {
    const target = 'spread@example.test';
    for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) {
      expect(await loginFrom(address, target, 'guess')).toEqual({ status: 401, code: 'invalid_credentials' });
    }
    expect(await loginFrom('127.0.0.5', target, 'guess')).toEqual({ status: 429, code: 'rate_limited' });
    // Another account from a fresh address is unaffected.
    expect(await loginFrom('127.0.0.6', 'other@example.test', 'guess')).toEqual({
      status: 401,
      code: 'invalid_credentials',
    });
  });

  it('does not limit the endpoints that take one-time tokens', async () => {
    const anonymous = new ControlClient(gw.controlUrl);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expectProblem(
        await anonymous.post('/v1/auth/password-reset', { token: 'guess', newPassword: 'a new password 1' }),
        400,
        'reset_token_invalid',
      );
    }
  });
});
