/**
 * GetObjectAttributes, answered from a HEAD of the object at the store: Ceph RGW 16.2 does not
 * implement it and answers `?attributes` with the object's body, which no client can parse. What
 * a HEAD tells (ETag, size, storage class, a stored checksum, the part count of a multipart
 * object's ETag) is what the operation returns.
 */
import { S3Error } from '../../protocol/errors.js';
import { firstHeaderValue, headerValue, type HeaderMap } from '../../protocol/headers.js';
import { queryValue } from '../../protocol/query.js';
import { element, S3_XML_NAMESPACE, xmlDocument } from '../../protocol/xml.js';
import { sendXml } from '../respond.js';
import type { InBucket, Planned } from '../stages.js';
import { errorForBareStatus } from '../upstream/outcome.js';
import { customerKeyHeaders, headObject } from '../upstream/probe.js';
import type { Upstream } from '../upstream/upstream.js';

const ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

const CHECKSUM_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-amz-checksum-crc32', 'ChecksumCRC32'],
  ['x-amz-checksum-crc32c', 'ChecksumCRC32C'],
  ['x-amz-checksum-crc64nvme', 'ChecksumCRC64NVME'],
  ['x-amz-checksum-sha1', 'ChecksumSHA1'],
  ['x-amz-checksum-sha256', 'ChecksumSHA256'],
];

/** The attributes asked for in `x-amz-object-attributes`; refused when none or an unknown one. */
export function requestedAttributes(header: string | undefined): ReadonlySet<Attribute> {
  const names = (header ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0 || names.some((name) => !(ATTRIBUTES as readonly string[]).includes(name))) {
    throw new S3Error('InvalidObjectAttributes');
  }
  return new Set(names as Attribute[]);
}

export function renderObjectAttributes(wanted: ReadonlySet<Attribute>, headers: HeaderMap): string {
  let body = '';
  const etag = (firstHeaderValue(headers, 'etag') ?? '').replace(/^"|"$/g, '');
  if (wanted.has('ETag')) body += element('ETag', etag);
  if (wanted.has('Checksum')) {
    const checksums = CHECKSUM_HEADERS.map(([header, name]) => {
      const value = firstHeaderValue(headers, header);
      return value === undefined ? '' : element(name, value);
    }).join('');
    if (checksums !== '') body += `<Checksum>${checksums}</Checksum>`;
  }
  const parts = /-(\d+)$/.exec(etag)?.[1];
  if (wanted.has('ObjectParts') && parts !== undefined) {
    body += `<ObjectParts>${element('PartsCount', parts)}</ObjectParts>`;
  }
  if (wanted.has('StorageClass'))
    body += element('StorageClass', firstHeaderValue(headers, 'x-amz-storage-class') ?? 'STANDARD');
  if (wanted.has('ObjectSize'))
    body += element('ObjectSize', firstHeaderValue(headers, 'content-length') ?? '0');
  return xmlDocument(
    `<GetObjectAttributesResponse xmlns="${S3_XML_NAMESPACE}">${body}</GetObjectAttributesResponse>`,
  );
}

export async function answerGetObjectAttributes(stage: InBucket<Planned>, upstream: Upstream): Promise<void> {
  const wanted = requestedAttributes(headerValue(stage.headers, 'x-amz-object-attributes'));
  const versionId = queryValue(stage.query, 'versionId') ?? null;
  const { status, headers } = await headObject(
    stage.exchange,
    upstream,
    { bucket: stage.bucket, key: stage.key, versionId },
    // The checksums are part of the attributes; S3 sends them to a HEAD only when asked.
    { ...customerKeyHeaders(stage.headers, 'object'), 'x-amz-checksum-mode': 'ENABLED' },
  );
  if (status === 404 && versionId !== null && firstHeaderValue(headers, 'x-amz-delete-marker') !== 'true') {
    throw new S3Error('NoSuchVersion');
  }
  const refused = errorForBareStatus(status, 'GET', true);
  if (refused !== null) throw refused;
  const answerHeaders: Record<string, string> = {};
  for (const name of ['last-modified', 'x-amz-version-id', 'x-amz-delete-marker']) {
    const value = firstHeaderValue(headers, name);
    if (value !== undefined) answerHeaders[name] = value;
  }
  sendXml(stage.exchange, 200, renderObjectAttributes(wanted, headers), answerHeaders);
}
