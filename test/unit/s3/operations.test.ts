import { describe, expect, it } from 'vitest';
import type { Classification } from '../../../src/s3/operations.js';
import { addressedFor } from '../../support/s3/stages.js';

/** The classification the address step gives the request (headers hoisted from a presigned query count). */
function classify(method: string, target: string, headers: Record<string, string> = {}): Classification {
  return addressedFor(method, target, headers).classification;
}

function nameOf(method: string, target: string, headers: Record<string, string> = {}): string {
  const result = classify(method, target, headers);
  return result.ok ? result.operation.name : `${result.error}/${result.label}`;
}

describe('classifyOperation', () => {
  it.each([
    ['GET', '/', 'ListBuckets'],
    ['GET', '/b-1', 'ListObjects'],
    ['GET', '/b-1?list-type=2&prefix=a&continuation-token=x', 'ListObjectsV2'],
    ['GET', '/b-1?location', 'GetBucketLocation'],
    ['GET', '/b-1?uploads', 'ListMultipartUploads'],
    ['HEAD', '/b-1', 'HeadBucket'],
    ['POST', '/b-1?delete', 'DeleteObjects'],
    ['GET', '/b-1/k?x-id=GetObject&response-content-type=text/plain', 'GetObject'],
    ['HEAD', '/b-1/k?partNumber=1', 'HeadObject'],
    ['PUT', '/b-1/k', 'PutObject'],
    ['DELETE', '/b-1/k?versionId=3', 'DeleteObject'],
    ['GET', '/b-1/k?acl', 'GetObjectAcl'],
    ['PUT', '/b-1/k?acl', 'PutObjectAcl'],
    ['GET', '/b-1/k?tagging', 'GetObjectTagging'],
    ['PUT', '/b-1/k?tagging', 'PutObjectTagging'],
    ['DELETE', '/b-1/k?tagging', 'DeleteObjectTagging'],
    ['POST', '/b-1/k?uploads', 'CreateMultipartUpload'],
    ['PUT', '/b-1/k?partNumber=2&uploadId=u', 'UploadPart'],
    ['POST', '/b-1/k?uploadId=u', 'CompleteMultipartUpload'],
    ['DELETE', '/b-1/k?uploadId=u', 'AbortMultipartUpload'],
    ['GET', '/b-1/k?uploadId=u&max-parts=10', 'ListParts'],
    ['OPTIONS', '/b-1/k', 'CorsPreflight'],
    ['POST', '/b-1', 'PostObject'],
  ])('%s %s is %s', (method, target, expected) => {
    expect(nameOf(method, target)).toBe(expected);
  });

  it('tells copies apart by x-amz-copy-source, also when hoisted into a presigned query', () => {
    expect(nameOf('PUT', '/b-1/k', { 'x-amz-copy-source': 'b-1/src' })).toBe('CopyObject');
    expect(nameOf('PUT', '/b-1/k?partNumber=1&uploadId=u', { 'x-amz-copy-source': 'b-1/src' })).toBe(
      'UploadPartCopy',
    );
    expect(nameOf('PUT', '/b-1/k?x-amz-copy-source=b-1%2Fsrc')).toBe('CopyObject');
  });

  it('ignores presigned and hoisted x-amz-* parameters', () => {
    expect(
      nameOf(
        'GET',
        '/b-1/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc&x-amz-meta-a=1&X-Amz-Expires=60',
      ),
    ).toBe('GetObject');
  });

  it('refuses every bucket-level write with 405 MethodNotAllowed, whatever the subresource', () => {
    for (const target of [
      '/b-1',
      '/b-1?cors',
      '/b-1?policy',
      '/b-1?lifecycle',
      '/b-1?website',
      '/b-1?replication',
      '/b-1?acl',
    ]) {
      expect(nameOf('PUT', target)).toBe('MethodNotAllowed/BucketConfigurationWrite');
      expect(nameOf('DELETE', target)).toBe('MethodNotAllowed/BucketConfigurationWrite');
    }
  });

  it.each([
    ['GET', '/b-1?versions&key-marker=a&version-id-marker=v', 'ListObjectVersions'],
    ['GET', '/b-1?versioning', 'GetBucketVersioning'],
    ['GET', '/b-1?acl', 'GetBucketAcl'],
    ['GET', '/b-1?cors', 'GetBucketCors'],
    ['GET', '/b-1?policy', 'GetBucketPolicy'],
    ['GET', '/b-1?policyStatus', 'GetBucketPolicyStatus'],
    ['GET', '/b-1?tagging', 'GetBucketTagging'],
    ['GET', '/b-1?encryption', 'GetBucketEncryption'],
    ['GET', '/b-1?lifecycle', 'GetBucketLifecycleConfiguration'],
    ['GET', '/b-1?ownershipControls', 'GetBucketOwnershipControls'],
    ['GET', '/b-1?publicAccessBlock', 'GetPublicAccessBlock'],
    ['GET', '/b-1?notification', 'GetBucketNotificationConfiguration'],
    ['GET', '/b-1?logging', 'GetBucketLogging'],
    ['GET', '/b-1?website', 'GetBucketWebsite'],
    ['GET', '/b-1?requestPayment', 'GetBucketRequestPayment'],
    ['GET', '/b-1?accelerate', 'GetBucketAccelerateConfiguration'],
    ['GET', '/b-1/k?attributes', 'GetObjectAttributes'],
    ['GET', '/b-1/k?retention', 'GetObjectRetention'],
    ['GET', '/b-1/k?legal-hold', 'GetObjectLegalHold'],
    ['GET', '/b-1/k?versionId=3', 'GetObject'],
  ])('offers the read %s %s as %s', (method, target, expected) => {
    const result = classify(method, target);
    expect(result.ok && result.operation).toMatchObject({ name: expected, scopeMethod: 'GET' });
  });

  it('refuses what is not offered with 501 NotImplemented, naming the operation and why', () => {
    const torrent = classify('GET', '/b-1/k?torrent');
    expect(torrent.ok).toBe(false);
    expect(!torrent.ok && torrent.notOffered).toEqual({
      name: 'GetObjectTorrent',
      reason: 'BitTorrent delivery is not offered',
    });
    for (const [method, target] of [
      ['GET', '/b-1?analytics'],
      ['GET', '/b-1?inventory&id=x'],
      ['PUT', '/b-1/k?retention'],
      ['POST', '/b-1/k?restore'],
      ['GET', '/b-1/k?unknown-parameter=1'],
      ['GET', '/b-1/k?acl&tagging'],
      ['PATCH', '/b-1/k'],
      ['PUT', '/'],
      ['DELETE', '/'],
    ]) {
      expect(nameOf(method as string, target as string)).toBe('OperationNotImplemented/NotImplemented');
    }
  });

  it.each([
    ['GET', '/b-1?abac', 'GetBucketAbac'],
    ['GET', '/b-1?metadataConfiguration', 'GetBucketMetadataConfiguration'],
    ['POST', '/b-1?metadataConfiguration', 'CreateBucketMetadataConfiguration'],
    ['PUT', '/b-1/k?encryption', 'UpdateObjectEncryption'],
    ['GET', '/b-1/k?annotation&x-id=ListObjectAnnotations', 'ListObjectAnnotations'],
    ['GET', '/b-1/k?annotation&annotationName=colour&x-id=GetObjectAnnotation', 'GetObjectAnnotation'],
    ['PUT', '/b-1/k?annotation&annotationName=colour', 'PutObjectAnnotation'],
    ['DELETE', '/b-1/k?annotation&annotationName=colour', 'DeleteObjectAnnotation'],
    // A parameter no offered operation takes does not hide which refused operation was asked for.
    ['GET', '/b-1/k?annotation&max-annotation-results=10&annotation-prefix=a', 'ListObjectAnnotations'],
    ['POST', '/b-1/k?select&select-type=2', 'SelectObjectContent'],
  ])('refuses %s %s as %s, not offered, with the reason', (method, target, expected) => {
    const result = classify(method, target);
    expect(result).toMatchObject({ ok: false, error: 'OperationNotImplemented', label: 'NotImplemented' });
    expect(!result.ok && result.notOffered?.name).toBe(expected);
    expect(!result.ok && result.notOffered?.reason).toMatch(/\S/);
  });

  it('refuses the bucket-level writes of S3 Metadata and ABAC with 405 MethodNotAllowed', () => {
    for (const target of [
      '/b-1?abac',
      '/b-1?metadataInventoryTable',
      '/b-1?metadataJournalTable',
      '/b-1?metadataAnnotationTable',
    ]) {
      expect(nameOf('PUT', target)).toBe('MethodNotAllowed/BucketConfigurationWrite');
    }
    expect(nameOf('DELETE', '/b-1?metadataConfiguration')).toBe('MethodNotAllowed/BucketConfigurationWrite');
  });

  it('never forwards an offered operation with a parameter only refused ones take', () => {
    for (const target of ['/b-1/k?annotationName=colour', '/b-1/k?max-annotation-results=1']) {
      const result = classify('GET', target);
      expect(result).toMatchObject({ ok: false, error: 'OperationNotImplemented' });
      expect(!result.ok && result.notOffered).toBeUndefined();
    }
  });

  it('wants a part number from 1 to 10000 on every part write, and a valid one wherever it is given', () => {
    for (const [method, target, headers] of [
      ['PUT', '/b-1/k?uploadId=u', {}],
      ['PUT', '/b-1/k?uploadId=u', { 'x-amz-copy-source': 'b-1/src' }],
      ['PUT', '/b-1/k?uploadId=u&partNumber=0', {}],
      ['PUT', '/b-1/k?uploadId=u&partNumber=10001', {}],
      ['PUT', '/b-1/k?uploadId=u&partNumber=01', {}],
      ['PUT', '/b-1/k?uploadId=u&partNumber=1.5', {}],
      ['GET', '/b-1/k?partNumber=-1', {}],
    ] as const) {
      expect(classify(method, target, headers), target).toMatchObject({
        ok: false,
        error: 'InvalidPartNumber',
        details: { ArgumentName: 'partNumber' },
      });
    }
    expect(nameOf('PUT', '/b-1/k?uploadId=u&partNumber=10000')).toBe('UploadPart');
    expect(nameOf('GET', '/b-1/k?partNumber=2')).toBe('GetObject');
  });

  it('refuses a versionId on every write that makes a new object or part, as S3 does', () => {
    for (const [method, target, headers] of [
      ['PUT', '/b-1/k?versionId=v1', {}],
      ['PUT', '/b-1/k?versionId=v1', { 'x-amz-copy-source': 'b-1/src' }],
      ['PUT', '/b-1/k?versionId=&x-amz-copy-source=b-1%2Fsrc', {}],
      ['POST', '/b-1/k?uploads&versionId=v1', {}],
      ['PUT', '/b-1/k?partNumber=1&uploadId=u&versionId=v1', {}],
      ['PUT', '/b-1/k?partNumber=1&uploadId=u&versionId=v1', { 'x-amz-copy-source': 'b-1/src' }],
      ['POST', '/b-1/k?uploadId=u&versionId=v1', {}],
    ] as const) {
      const result = classify(method, target, headers);
      expect(result.ok ? result.operation.name : result).toMatchObject({
        ok: false,
        error: 'VersionIdNotAccepted',
        details: { ArgumentName: 'versionId' },
      });
    }
    // Reads, deletions and ACLs name versions as S3 lets them.
    expect(nameOf('DELETE', '/b-1/k?versionId=v1')).toBe('DeleteObject');
    expect(nameOf('PUT', '/b-1/k?acl&versionId=v1')).toBe('PutObjectAcl');
  });

  it('names the scope method each operation needs, and which are public reads', () => {
    const deleteObjects = classify('POST', '/b-1?delete');
    expect(deleteObjects.ok && deleteObjects.operation.scopeMethod).toBe('DELETE');
    const put = classify('PUT', '/b-1/k');
    expect(put.ok && put.operation).toMatchObject({ scopeMethod: 'PUT', publicRead: false, level: 'object' });
    const get = classify('GET', '/b-1/k');
    expect(get.ok && get.operation.publicRead).toBe(true);
    const list = classify('GET', '/b-1');
    expect(list.ok && list.operation.publicRead).toBe(false);
  });
});
