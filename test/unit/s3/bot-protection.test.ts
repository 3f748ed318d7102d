import { describe, expect, it } from 'vitest';
import { hasRecognisableUserAgent, requiresChallenge } from '../../../src/s3/steps/bot-protection.js';

describe('bot protection', () => {
  it('recognises user agents that name a product', () => {
    for (const agent of [
      'aws-sdk-js/3.1',
      'curl/8.5.0',
      'Mozilla/5.0 (X11)',
      's3cmd/2.4',
      'test',
      'rclone/v1.66',
    ]) {
      expect(hasRecognisableUserAgent(agent), agent).toBe(true);
    }
    for (const agent of [undefined, '', '   ', '-', '1', '%', 'x']) {
      expect(hasRecognisableUserAgent(agent), String(agent)).toBe(false);
    }
  });

  it('anonymous mode (the default) challenges only unsigned requests without a recognisable agent', () => {
    expect(requiresChallenge('anonymous', { signed: false, userAgent: undefined })).toBe(true);
    expect(requiresChallenge('anonymous', { signed: false, userAgent: '-' })).toBe(true);
    expect(requiresChallenge('anonymous', { signed: true, userAgent: undefined })).toBe(false);
    expect(requiresChallenge('anonymous', { signed: false, userAgent: 'curl/8' })).toBe(false);
  });

  it('strict mode challenges every request without a recognisable agent, signed or not', () => {
    expect(requiresChallenge('strict', { signed: true, userAgent: undefined })).toBe(true);
    expect(requiresChallenge('strict', { signed: false, userAgent: undefined })).toBe(true);
    expect(requiresChallenge('strict', { signed: true, userAgent: 'python-requests/2.31' })).toBe(false);
  });

  it('off challenges nothing', () => {
    expect(requiresChallenge('off', { signed: false, userAgent: undefined })).toBe(false);
  });
});
