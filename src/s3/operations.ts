/**
 * Classifies a request into a named S3 operation from an explicit allowlist. Whatever is not in
 * the table is refused before it can reach the shared backend: bucket-level writes (bucket
 * configuration belongs to the control plane) with 405 MethodNotAllowed, everything else with
 * 501 NotImplemented. Operation names double as the `operation` metrics label, so the label set
 * is closed.
 */
import type { S3ErrorKey } from '../protocol/errors.js';
import { isHoistedHeaderParameter, isPresignAuthParameter, type QueryParameter } from '../protocol/query.js';

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

/** The operation label of a request in metrics and the access log. */
export type OperationLabel = OperationName | UnclassifiedLabel;

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

function operation(name: OperationName, level: Level, method: string): S3Operation {
  return {
    name,
    level,
    scopeMethod: name === 'DeleteObjects' ? 'DELETE' : method,
    publicRead: PUBLIC_READS.has(name),
  };
}

function routeKey(method: string, level: Level, subresource: string | null, copy: boolean): string {
  return `${method} ${level} ${subresource ?? ''} ${copy ? 'copy' : ''}`;
}

/** Every route under each key it answers to, its operation built once. */
const ROUTE_TABLE: ReadonlyMap<string, S3Operation> = new Map(
  ROUTES.flatMap((route) =>
    (route.copy === undefined ? [false, true] : [route.copy]).map(
      (copy) =>
        [
          routeKey(route.method, route.level, route.subresource, copy),
          operation(route.name, route.level, route.method),
        ] as const,
    ),
  ),
);

const LIST_OBJECTS_V2 = operation('ListObjectsV2', 'bucket', 'GET');

const notImplemented: Classification = {
  ok: false,
  error: 'OperationNotImplemented',
  label: 'NotImplemented',
};

const bucketConfigurationWrite: Classification = {
  ok: false,
  error: 'MethodNotAllowed',
  label: 'BucketConfigurationWrite',
};

/** The level a request addresses: the service root, a bucket, or an object. */
export function levelOf(bucket: string | null, key: string): Level {
  if (bucket === null) return 'service';
  return key === '' ? 'bucket' : 'object';
}

export function classifyOperation(
  method: string,
  level: Level,
  query: readonly QueryParameter[],
  copy: boolean,
): Classification {
  if (method === 'OPTIONS') return { ok: true, operation: operation('CorsPreflight', level, method) };
  // Creating, deleting or configuring a bucket is the control plane's job, whatever the subresource.
  if (level === 'bucket' && (method === 'PUT' || method === 'DELETE')) return bucketConfigurationWrite;

  let subresource: string | null = null;
  let listV2 = false;
  for (const { name, value } of query) {
    if (SUBRESOURCES.has(name)) {
      if (subresource !== null && subresource !== name) return notImplemented;
      subresource = name;
    } else if (REFINING_PARAMETERS.has(name)) {
      if (name === 'list-type' && value === '2') listV2 = true;
    } else if (!isPresignAuthParameter(name) && !isHoistedHeaderParameter(name)) {
      return notImplemented;
    }
  }
  const found = ROUTE_TABLE.get(routeKey(method, level, subresource, copy));
  if (found === undefined) return notImplemented;
  return { ok: true, operation: found.name === 'ListObjects' && listV2 ? LIST_OBJECTS_V2 : found };
}
