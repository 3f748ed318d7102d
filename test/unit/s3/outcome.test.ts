import { describe, expect, it } from 'vitest';
import {
  clientResponseHeaders,
  errorCodeOf,
  errorForBareStatus,
  relayedErrorDocument,
  relayedXmlAnswer,
  statusLabel,
} from '../../../src/s3/upstream/outcome.js';

describe('backend answers', () => {
  it("puts the gateway's request id in a backend error document, replacing the backend's", () => {
    expect(
      relayedErrorDocument(
        '<Error><Code>X</Code><Message>m</Message><RequestId>tx-1</RequestId></Error>',
        'ABC',
      ),
    ).toBe('<Error><Code>X</Code><Message>m</Message><RequestId>ABC</RequestId></Error>');
    expect(
      relayedErrorDocument(
        '<?xml version="1.0"?>\n<Error><Code>X</Code><Message>m</Message></Error>\n',
        'ABC',
      ),
    ).toBe(
      '<?xml version="1.0"?>\n<Error><Code>X</Code><Message>m</Message><RequestId>ABC</RequestId></Error>',
    );
  });

  it("fills an empty message from the catalogue and drops the store's HostId (as Ceph RGW answers)", () => {
    const rgw =
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message></Message><BucketName>b</BucketName><RequestId>tx00000-rgw</RequestId><HostId>5f2a-default-default</HostId></Error>';
    expect(relayedErrorDocument(rgw, 'ABC')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><BucketName>b</BucketName><RequestId>ABC</RequestId></Error>',
    );
    expect(relayedErrorDocument('<Error><Code>InvalidRange</Code><Message/></Error>', 'ABC')).toBe(
      '<Error><Code>InvalidRange</Code><Message>The requested range is not satisfiable.</Message><RequestId>ABC</RequestId></Error>',
    );
    // A code only the store answers with (a forwarded bucket read) has a message of its own.
    expect(
      relayedErrorDocument('<Error><Code>NoSuchBucketPolicy</Code><Message></Message></Error>', 'ABC'),
    ).toBe(
      '<Error><Code>NoSuchBucketPolicy</Code><Message>The bucket has no bucket policy.</Message><RequestId>ABC</RequestId></Error>',
    );
    expect(relayedErrorDocument('<Error><Code>SomethingNew</Code></Error>', 'ABC')).toBe(
      '<Error><Code>SomethingNew</Code><Message>The object store refused the request.</Message><RequestId>ABC</RequestId></Error>',
    );
  });

  it("answers an XML error without an <Error> naming a <Code> with the catalogue's entry for its status", () => {
    const answer = (document: string, status: number, method = 'GET') => {
      const relayed = relayedXmlAnswer(document, 'ABC', status, method, true);
      return typeof relayed === 'string' ? relayed : `${relayed.status} ${relayed.code}: ${relayed.text}`;
    };
    expect(answer('', 404)).toBe('404 NoSuchKey: The specified key does not exist.');
    expect(answer('<?xml version="1.0"?><Status>busy</Status>', 500)).toBe(
      '503 ServiceUnavailable: The object store behind this endpoint is unavailable. Please retry.',
    );
    expect(answer('<Error><Message>no code</Message></Error>', 409)).toBe(
      '400 InvalidRequest: The object store refused the request.',
    );
    expect(answer('<Error><Code>NoSuchKey</Code><Message></Message></Error>', 404)).toBe(
      '<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><RequestId>ABC</RequestId></Error>',
    );
    // A redirect is no error: its document passes on, without the store's HostId.
    expect(answer('<Redirect><HostId>h</HostId><Endpoint>e</Endpoint></Redirect>', 301)).toBe(
      '<Redirect><Endpoint>e</Endpoint></Redirect>',
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

describe('clientResponseHeaders', () => {
  it("drops hop-by-hop headers, the backend's ids, its identity and CORS, keeps the object's", () => {
    expect(
      clientResponseHeaders({
        etag: '"e"',
        'content-length': '4',
        'last-modified': 'x',
        'x-amz-meta-a': '1',
        'x-amz-request-id': 'backend',
        'x-amz-id-2': 'backend',
        'x-rgw-object-type': 'Normal',
        connection: 'keep-alive',
        'transfer-encoding': 'chunked',
        'access-control-allow-origin': '*',
        server: 'RGW',
        date: 'now',
      }),
    ).toEqual({ etag: '"e"', 'content-length': '4', 'last-modified': 'x', 'x-amz-meta-a': '1' });
  });
});
