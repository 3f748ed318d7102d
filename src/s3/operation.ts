/**
 * Classifies a request into a named S3 operation from an explicit allowlist. Whatever is not in
 * the table is refused before it can reach the shared backend: bucket-level writes (bucket
 * configuration belongs to the control plane) with 405 MethodNotAllowed, everything else with
 * 501 NotImplemented. Operation names double as the `operation` metrics label, so the label set
 * is closed.
 */
import type { S3Address } from './address.js';
import type { S3ErrorKey } from './errors.js';
import {
  headerValue,
  isHoistedHeaderParameter,
  isPresignAuthParameter,
  type HeaderMap,
} from './request-headers.js';

export type OperationName =
  | 'ListBuckets'
  | 'ListObjects'
  | 'ListObjectsV2'
  | 'ListMultipartUploads'
  | 'GetBucketLocation'
  | 'HeadBucket'
  | 'DeleteObjects'
  | 'GetObject'
  | 'HeadObject'
  | 'PutObject'
  | 'CopyObject'
  | 'DeleteObject'
  | 'GetObjectAcl'
  | 'PutObjectAcl'
  | 'GetObjectTagging'
  | 'PutObjectTagging'
  | 'DeleteObjectTagging'
  | 'CreateMultipartUpload'
  | 'UploadPart'
  | 'UploadPartCopy'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'ListParts'
  | 'CorsPreflight';

/** Labels for requests that never got (or never had) an operation. */
export type UnclassifiedLabel = 'Unclassified' | 'BucketConfigurationWrite' | 'NotImplemented';

export type Level = 'service' | 'bucket' | 'object';

export interface S3Operation {
  readonly name: OperationName;
  readonly level: Level;
  /** The method a credential's scope must permit (DeleteObjects is a POST that deletes). */
  readonly scopeMethod: string;
  /** Anonymous callers may use it on a public bucket. */
  readonly publicRead: boolean;
}

export type Classification =
  | { readonly ok: true; readonly operation: S3Operation }
  | { readonly ok: false; readonly error: S3ErrorKey; readonly label: UnclassifiedLabel };

/** Query parameters that select an operation (S3's subresources). Any of them not routed below is refused. */
const SUBRESOURCES: ReadonlySet<string> = new Set([
  'accelerate',
  'acl',
  'analytics',
  'attributes',
  'cors',
  'delete',
  'encryption',
  'intelligent-tiering',
  'inventory',
  'legal-hold',
  'lifecycle',
  'location',
  'logging',
  'metadataConfiguration',
  'metrics',
  'notification',
  'object-lock',
  'ownershipControls',
  'policy',
  'policyStatus',
  'publicAccessBlock',
  'renameObject',
  'replication',
  'requestPayment',
  'restore',
  'retention',
  'select',
  'session',
  'tagging',
  'torrent',
  'uploadId',
  'uploads',
  'versioning',
  'versions',
  'website',
]);

/** Parameters that only refine an operation (listing, ranges, response overrides, SDK markers). */
const REFINING_PARAMETERS: ReadonlySet<string> = new Set([
  'prefix',
  'delimiter',
  'marker',
  'max-keys',
  'encoding-type',
  'list-type',
  'continuation-token',
  'fetch-owner',
  'start-after',
  'key-marker',
  'upload-id-marker',
  'max-uploads',
  'max-parts',
  'part-number-marker',
  'max-buckets',
  'bucket-region',
  'versionId',
  'partNumber',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
  'response-content-language',
  'response-content-type',
  'response-expires',
  // The AWS SDKs name the operation in the query; it changes nothing.
  'x-id',
]);

interface Route {
  readonly method: string;
  readonly level: Level;
  /** The subresource that selects the route; null for none. */
  readonly subresource: string | null;
  /** Only when the request carries x-amz-copy-source (true) or does not (false); undefined: either. */
  readonly copy?: boolean;
  readonly name: OperationName;
}

const ROUTES: readonly Route[] = [
  { method: 'GET', level: 'service', subresource: null, name: 'ListBuckets' },
  { method: 'GET', level: 'bucket', subresource: null, name: 'ListObjects' },
  { method: 'GET', level: 'bucket', subresource: 'location', name: 'GetBucketLocation' },
  { method: 'GET', level: 'bucket', subresource: 'uploads', name: 'ListMultipartUploads' },
  { method: 'HEAD', level: 'bucket', subresource: null, name: 'HeadBucket' },
  { method: 'POST', level: 'bucket', subresource: 'delete', name: 'DeleteObjects' },
  { method: 'GET', level: 'object', subresource: null, name: 'GetObject' },
  { method: 'HEAD', level: 'object', subresource: null, name: 'HeadObject' },
  { method: 'PUT', level: 'object', subresource: null, copy: false, name: 'PutObject' },
  { method: 'PUT', level: 'object', subresource: null, copy: true, name: 'CopyObject' },
  { method: 'DELETE', level: 'object', subresource: null, name: 'DeleteObject' },
  { method: 'GET', level: 'object', subresource: 'acl', name: 'GetObjectAcl' },
  { method: 'PUT', level: 'object', subresource: 'acl', name: 'PutObjectAcl' },
  { method: 'GET', level: 'object', subresource: 'tagging', name: 'GetObjectTagging' },
  { method: 'PUT', level: 'object', subresource: 'tagging', name: 'PutObjectTagging' },
  { method: 'DELETE', level: 'object', subresource: 'tagging', name: 'DeleteObjectTagging' },
  { method: 'POST', level: 'object', subresource: 'uploads', name: 'CreateMultipartUpload' },
  { method: 'PUT', level: 'object', subresource: 'uploadId', copy: false, name: 'UploadPart' },
  { method: 'PUT', level: 'object', subresource: 'uploadId', copy: true, name: 'UploadPartCopy' },
  { method: 'POST', level: 'object', subresource: 'uploadId', name: 'CompleteMultipartUpload' },
  { method: 'DELETE', level: 'object', subresource: 'uploadId', name: 'AbortMultipartUpload' },
  { method: 'GET', level: 'object', subresource: 'uploadId', name: 'ListParts' },
];

const PUBLIC_READS: ReadonlySet<OperationName> = new Set(['GetObject', 'HeadObject']);

function levelOf(address: S3Address): Level {
  if (address.bucket === null) return 'service';
  return address.key === '' ? 'bucket' : 'object';
}

function operation(name: OperationName, level: Level, method: string): S3Operation {
  return {
    name,
    level,
    scopeMethod: name === 'DeleteObjects' ? 'DELETE' : method,
    publicRead: PUBLIC_READS.has(name),
  };
}

const notImplemented: Classification = {
  ok: false,
  error: 'OperationNotImplemented',
  label: 'NotImplemented',
};

export function classifyOperation(method: string, address: S3Address, headers: HeaderMap): Classification {
  const level = levelOf(address);
  if (method === 'OPTIONS') return { ok: true, operation: operation('CorsPreflight', level, method) };
  // Creating, deleting or configuring a bucket is the control plane's job, whatever the subresource.
  if (level === 'bucket' && (method === 'PUT' || method === 'DELETE')) {
    return { ok: false, error: 'MethodNotAllowed', label: 'BucketConfigurationWrite' };
  }

  const subresources = new Set<string>();
  for (const { name } of address.query) {
    if (isPresignAuthParameter(name) || isHoistedHeaderParameter(name)) continue;
    if (SUBRESOURCES.has(name)) subresources.add(name);
    else if (!REFINING_PARAMETERS.has(name)) return notImplemented;
  }
  if (subresources.size > 1) return notImplemented;
  const [subresource = null] = subresources;
  const copy = headerValue(headers, 'x-amz-copy-source') !== undefined;

  const route = ROUTES.find(
    (candidate) =>
      candidate.method === method &&
      candidate.level === level &&
      candidate.subresource === subresource &&
      (candidate.copy === undefined || candidate.copy === copy),
  );
  if (route === undefined) return notImplemented;
  const listV2 =
    route.name === 'ListObjects' && address.query.some((p) => p.name === 'list-type' && p.value === '2');
  return { ok: true, operation: operation(listV2 ? 'ListObjectsV2' : route.name, level, method) };
}
