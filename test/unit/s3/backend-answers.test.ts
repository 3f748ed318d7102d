import { describe, expect, it } from 'vitest';
import {
  errorCodeOf,
  errorForBareStatus,
  statusLabel,
  withRequestId,
} from '../../../src/s3/backend-answers.js';

describe('backend answers', () => {
  it("puts the gateway's request id in a backend error document, replacing the backend's", () => {
    expect(withRequestId('<Error><Code>X</Code><RequestId>tx-1</RequestId></Error>', 'ABC')).toBe(
      '<Error><Code>X</Code><RequestId>ABC</RequestId></Error>',
    );
    expect(withRequestId('<?xml version="1.0"?>\n<Error><Code>X</Code></Error>\n', 'ABC')).toBe(
      '<?xml version="1.0"?>\n<Error><Code>X</Code><RequestId>ABC</RequestId></Error>',
    );
  });

  it('reads the code of an error document, and labels a status without one', () => {
    expect(errorCodeOf('<Error><Code>NoSuchKey</Code></Error>')).toBe('NoSuchKey');
    expect(errorCodeOf('<html>oops</html>')).toBeUndefined();
    expect([200, 206, 304, 403, 404, 412, 500].map(statusLabel)).toEqual([
      '',
      '',
      '',
      'AccessDenied',
      'NotFound',
      'PreconditionFailed',
      'Http500',
    ]);
  });

  it('tells an error answer without a document by its status, never for HEAD or a success', () => {
    const code = (status: number, hasKey = true) => {
      const error = errorForBareStatus(status, 'GET', hasKey);
      return error === null ? null : `${error.status} ${error.code}`;
    };
    expect(code(200)).toBeNull();
    expect(code(304)).toBeNull();
    expect(errorForBareStatus(404, 'HEAD', true)).toBeNull();
    expect(code(403)).toBe('403 AccessDenied');
    expect(code(404)).toBe('404 NoSuchKey');
    expect(code(404, false)).toBe('404 NoSuchBucket');
    expect(code(411)).toBe('411 MissingContentLength');
    expect(code(412)).toBe('412 PreconditionFailed');
    expect(code(416)).toBe('416 InvalidRange');
    expect(code(429)).toBe('503 SlowDown');
    expect(code(409)).toBe('400 InvalidRequest');
    expect(code(501)).toBe('501 NotImplemented');
    expect(code(500)).toBe('503 ServiceUnavailable');
    expect(code(502)).toBe('503 ServiceUnavailable');
  });
});
