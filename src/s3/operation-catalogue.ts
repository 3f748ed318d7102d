/**
 * Every operation of the S3 API as AWS documents it, and what the storage endpoint does with it:
 * forwards it to the object store (under the scope method it needs), answers it itself, refuses it
 * as a bucket-level write (405: bucket configuration belongs to the control plane), or refuses it
 * as not offered (501, with the reason). The classifier routes by this table and
 * docs/s3-compatibility.md is generated from it (`npm run generate:docs`), so the code and the page
 * cannot disagree.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';

/** What a request addresses: the service root, a bucket, or an object. */
export type Level = 'service' | 'bucket' | 'object';

export type Treatment =
  /** Sent on to the object store, re-signed; what it answers reaches the client. */
  | { readonly kind: 'forwarded' }
  /** Answered by the gateway from its own records (`how` says from what). */
  | { readonly kind: 'answered'; readonly how: string }
  /** 405 MethodNotAllowed: bucket creation, deletion and configuration are the control plane's. */
  | { readonly kind: 'bucket-write' }
  /** 501 NotImplemented, with the reason. */
  | { readonly kind: 'not-offered'; readonly reason: string };

export interface CatalogueEntry {
  /** The operation's name in the S3 API reference (and the `operation` metric label when offered). */
  readonly name: string;
  readonly method: HttpMethod;
  readonly level: Level;
  /** The query parameter that selects it (S3's subresource); null for none. */
  readonly subresource: string | null;
  /** Only with an `x-amz-copy-source` header (true) or without (false); absent: either. */
  readonly copy?: boolean;
  /**
   * Only with (true) or without (false) the parameter that names one configuration or annotation:
   * `id` for the per-configuration bucket reads, `annotationName` for object annotations.
   */
  readonly withId?: boolean;
  readonly treatment: Treatment;
  /** The method a credential's scope must allow, when not the request's (DeleteObjects deletes). */
  readonly scopeMethod?: HttpMethod;
  /** Anonymous callers may use it on a public bucket (its objects as they are now: no `versionId`). */
  readonly publicRead?: true;
  /** Names the same request answers to in older references (GetBucketLifecycle…). */
  readonly aliases?: readonly string[];
  /**
   * Why no request to this endpoint reaches it (it goes to another AWS endpoint, and the same
   * request here is another operation); it is listed, and never routed.
   */
  readonly unroutable?: string;
  /** A variant of another entry's request, told apart by this query parameter (`list-type=2`). */
  readonly selector?: string;
}

/** The parameter that names one configuration or annotation, for an entry with `withId`. */
export function namingParameter(entry: Pick<CatalogueEntry, 'subresource'>): string {
  return entry.subresource === 'annotation' ? 'annotationName' : 'id';
}

const FORWARDED = { kind: 'forwarded' } as const;
const BUCKET_WRITE = { kind: 'bucket-write' } as const;

function notOffered(reason: string): { readonly kind: 'not-offered'; readonly reason: string } {
  return { kind: 'not-offered', reason };
}

const AWS_ONLY = notOffered(
  'an Amazon S3 analytics, inventory or tiering feature that Ceph RGW and MinIO-compatible stores do not have',
);
const DIRECTORY_BUCKETS = notOffered('S3 Express One Zone directory buckets only');
const METADATA_TABLES = notOffered('S3 Metadata tables live in AWS, not in the object store');
const OBJECT_ANNOTATIONS = notOffered(
  'object annotations are an Amazon S3 feature that Ceph RGW and MinIO-compatible stores do not have',
);
const ABAC = notOffered(
  "attribute-based access control is evaluated by AWS IAM; here a credential's scope decides what it may do",
);
/** Why the gateway answers a bucket configuration read itself. */
const NEVER_CONFIGURED =
  'its write is a bucket-level write (405) and the control plane sets none, and Ceph RGW 16.2 answers the bucket listing to';

const OBJECT_LOCK_WRITE = notOffered(
  'object lock needs a bucket created with it, and buckets are created by the control plane without',
);

export const OPERATION_CATALOGUE = [
  // The service.
  {
    name: 'ListBuckets',
    method: 'GET',
    level: 'service',
    subresource: null,
    treatment: { kind: 'answered', how: "the organisation's buckets from the gateway's records" },
  },
  {
    name: 'ListDirectoryBuckets',
    method: 'GET',
    level: 'service',
    subresource: null,
    treatment: DIRECTORY_BUCKETS,
    unroutable: 'sent to the S3 Express control endpoint; GET / here is ListBuckets',
  },

  // Buckets: reads.
  { name: 'HeadBucket', method: 'HEAD', level: 'bucket', subresource: null, treatment: FORWARDED },
  { name: 'ListObjects', method: 'GET', level: 'bucket', subresource: null, treatment: FORWARDED },
  {
    name: 'ListObjectsV2',
    method: 'GET',
    level: 'bucket',
    subresource: null,
    selector: 'list-type=2',
    treatment: FORWARDED,
  },
  {
    name: 'ListObjectVersions',
    method: 'GET',
    level: 'bucket',
    subresource: 'versions',
    treatment: FORWARDED,
  },
  {
    name: 'ListMultipartUploads',
    method: 'GET',
    level: 'bucket',
    subresource: 'uploads',
    treatment: FORWARDED,
  },
  {
    name: 'GetBucketLocation',
    method: 'GET',
    level: 'bucket',
    subresource: 'location',
    treatment: { kind: 'answered', how: 'the first configured signing region' },
  },
  {
    name: 'GetBucketAcl',
    method: 'GET',
    level: 'bucket',
    subresource: 'acl',
    treatment: {
      kind: 'answered',
      how: "the owning organisation's full control, and public read when the bucket is public",
    },
  },
  {
    name: 'GetBucketCors',
    method: 'GET',
    level: 'bucket',
    subresource: 'cors',
    treatment: { kind: 'answered', how: "the bucket's CORS rules as set through the control plane" },
  },
  {
    name: 'GetBucketVersioning',
    method: 'GET',
    level: 'bucket',
    subresource: 'versioning',
    treatment: FORWARDED,
  },
  { name: 'GetBucketPolicy', method: 'GET', level: 'bucket', subresource: 'policy', treatment: FORWARDED },
  {
    name: 'GetBucketPolicyStatus',
    method: 'GET',
    level: 'bucket',
    subresource: 'policyStatus',
    treatment: FORWARDED,
  },
  { name: 'GetBucketTagging', method: 'GET', level: 'bucket', subresource: 'tagging', treatment: FORWARDED },
  {
    name: 'GetBucketEncryption',
    method: 'GET',
    level: 'bucket',
    subresource: 'encryption',
    treatment: {
      kind: 'answered',
      how: `ServerSideEncryptionConfigurationNotFoundError: ${NEVER_CONFIGURED} ?encryption`,
    },
  },
  {
    name: 'GetBucketLifecycleConfiguration',
    aliases: ['GetBucketLifecycle'],
    method: 'GET',
    level: 'bucket',
    subresource: 'lifecycle',
    treatment: FORWARDED,
  },
  {
    name: 'GetBucketOwnershipControls',
    method: 'GET',
    level: 'bucket',
    subresource: 'ownershipControls',
    treatment: {
      kind: 'answered',
      how: `OwnershipControlsNotFoundError: ${NEVER_CONFIGURED} ?ownershipControls`,
    },
  },
  {
    name: 'GetPublicAccessBlock',
    method: 'GET',
    level: 'bucket',
    subresource: 'publicAccessBlock',
    treatment: FORWARDED,
  },
  {
    name: 'GetBucketNotificationConfiguration',
    aliases: ['GetBucketNotification'],
    method: 'GET',
    level: 'bucket',
    subresource: 'notification',
    treatment: FORWARDED,
  },
  { name: 'GetBucketLogging', method: 'GET', level: 'bucket', subresource: 'logging', treatment: FORWARDED },
  { name: 'GetBucketWebsite', method: 'GET', level: 'bucket', subresource: 'website', treatment: FORWARDED },
  {
    name: 'GetBucketRequestPayment',
    method: 'GET',
    level: 'bucket',
    subresource: 'requestPayment',
    treatment: FORWARDED,
  },
  {
    name: 'GetBucketAccelerateConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'accelerate',
    treatment: {
      kind: 'answered',
      how: `an empty AccelerateConfiguration (no Status), as S3 answers for a bucket never accelerated: ${NEVER_CONFIGURED} ?accelerate`,
    },
  },
  {
    name: 'GetBucketReplication',
    method: 'GET',
    level: 'bucket',
    subresource: 'replication',
    treatment: FORWARDED,
  },
  {
    name: 'GetObjectLockConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'object-lock',
    treatment: FORWARDED,
  },
  {
    name: 'GetBucketAnalyticsConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'analytics',
    withId: true,
    treatment: AWS_ONLY,
  },
  {
    name: 'ListBucketAnalyticsConfigurations',
    method: 'GET',
    level: 'bucket',
    subresource: 'analytics',
    withId: false,
    treatment: AWS_ONLY,
  },
  {
    name: 'GetBucketInventoryConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'inventory',
    withId: true,
    treatment: AWS_ONLY,
  },
  {
    name: 'ListBucketInventoryConfigurations',
    method: 'GET',
    level: 'bucket',
    subresource: 'inventory',
    withId: false,
    treatment: AWS_ONLY,
  },
  {
    name: 'GetBucketMetricsConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'metrics',
    withId: true,
    treatment: AWS_ONLY,
  },
  {
    name: 'ListBucketMetricsConfigurations',
    method: 'GET',
    level: 'bucket',
    subresource: 'metrics',
    withId: false,
    treatment: AWS_ONLY,
  },
  {
    name: 'GetBucketIntelligentTieringConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'intelligent-tiering',
    withId: true,
    treatment: AWS_ONLY,
  },
  {
    name: 'ListBucketIntelligentTieringConfigurations',
    method: 'GET',
    level: 'bucket',
    subresource: 'intelligent-tiering',
    withId: false,
    treatment: AWS_ONLY,
  },
  {
    name: 'GetBucketMetadataTableConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'metadataTable',
    treatment: METADATA_TABLES,
  },
  {
    name: 'GetBucketMetadataConfiguration',
    method: 'GET',
    level: 'bucket',
    subresource: 'metadataConfiguration',
    treatment: METADATA_TABLES,
  },
  { name: 'GetBucketAbac', method: 'GET', level: 'bucket', subresource: 'abac', treatment: ABAC },

  // Buckets: writes, the control plane's (any PUT or DELETE of a bucket).
  { name: 'CreateBucket', method: 'PUT', level: 'bucket', subresource: null, treatment: BUCKET_WRITE },
  { name: 'DeleteBucket', method: 'DELETE', level: 'bucket', subresource: null, treatment: BUCKET_WRITE },
  { name: 'PutBucketAcl', method: 'PUT', level: 'bucket', subresource: 'acl', treatment: BUCKET_WRITE },
  { name: 'PutBucketCors', method: 'PUT', level: 'bucket', subresource: 'cors', treatment: BUCKET_WRITE },
  {
    name: 'DeleteBucketCors',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'cors',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketVersioning',
    method: 'PUT',
    level: 'bucket',
    subresource: 'versioning',
    treatment: BUCKET_WRITE,
  },
  { name: 'PutBucketPolicy', method: 'PUT', level: 'bucket', subresource: 'policy', treatment: BUCKET_WRITE },
  {
    name: 'DeleteBucketPolicy',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'policy',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketTagging',
    method: 'PUT',
    level: 'bucket',
    subresource: 'tagging',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketTagging',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'tagging',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketEncryption',
    method: 'PUT',
    level: 'bucket',
    subresource: 'encryption',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketEncryption',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'encryption',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketLifecycleConfiguration',
    aliases: ['PutBucketLifecycle'],
    method: 'PUT',
    level: 'bucket',
    subresource: 'lifecycle',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketLifecycle',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'lifecycle',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketOwnershipControls',
    method: 'PUT',
    level: 'bucket',
    subresource: 'ownershipControls',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketOwnershipControls',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'ownershipControls',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutPublicAccessBlock',
    method: 'PUT',
    level: 'bucket',
    subresource: 'publicAccessBlock',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeletePublicAccessBlock',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'publicAccessBlock',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketNotificationConfiguration',
    aliases: ['PutBucketNotification'],
    method: 'PUT',
    level: 'bucket',
    subresource: 'notification',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketLogging',
    method: 'PUT',
    level: 'bucket',
    subresource: 'logging',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketWebsite',
    method: 'PUT',
    level: 'bucket',
    subresource: 'website',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketWebsite',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'website',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketRequestPayment',
    method: 'PUT',
    level: 'bucket',
    subresource: 'requestPayment',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketAccelerateConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'accelerate',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketReplication',
    method: 'PUT',
    level: 'bucket',
    subresource: 'replication',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketReplication',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'replication',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutObjectLockConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'object-lock',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketAnalyticsConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'analytics',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketAnalyticsConfiguration',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'analytics',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketInventoryConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'inventory',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketInventoryConfiguration',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'inventory',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketMetricsConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'metrics',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketMetricsConfiguration',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'metrics',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'PutBucketIntelligentTieringConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'intelligent-tiering',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketIntelligentTieringConfiguration',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'intelligent-tiering',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketMetadataTableConfiguration',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'metadataTable',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'DeleteBucketMetadataConfiguration',
    method: 'DELETE',
    level: 'bucket',
    subresource: 'metadataConfiguration',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'UpdateBucketMetadataInventoryTableConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'metadataInventoryTable',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'UpdateBucketMetadataJournalTableConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'metadataJournalTable',
    treatment: BUCKET_WRITE,
  },
  {
    name: 'UpdateBucketMetadataAnnotationTableConfiguration',
    method: 'PUT',
    level: 'bucket',
    subresource: 'metadataAnnotationTable',
    treatment: BUCKET_WRITE,
  },
  { name: 'PutBucketAbac', method: 'PUT', level: 'bucket', subresource: 'abac', treatment: BUCKET_WRITE },
  {
    name: 'CreateBucketMetadataTableConfiguration',
    method: 'POST',
    level: 'bucket',
    subresource: 'metadataTable',
    treatment: METADATA_TABLES,
  },
  {
    name: 'CreateBucketMetadataConfiguration',
    method: 'POST',
    level: 'bucket',
    subresource: 'metadataConfiguration',
    treatment: METADATA_TABLES,
  },
  {
    name: 'CreateSession',
    method: 'GET',
    level: 'bucket',
    subresource: 'session',
    treatment: DIRECTORY_BUCKETS,
  },

  // Buckets: object writes addressed to the bucket.
  {
    name: 'DeleteObjects',
    method: 'POST',
    level: 'bucket',
    subresource: 'delete',
    scopeMethod: 'DELETE',
    treatment: FORWARDED,
  },
  {
    name: 'PostObject',
    method: 'POST',
    level: 'bucket',
    subresource: null,
    treatment: {
      kind: 'answered',
      how: "a browser form upload: its policy's signature and conditions verified, the file streamed to the store as a PutObject (scope method PUT), answered as S3 answers a form",
    },
  },

  // Objects.
  {
    name: 'GetObject',
    method: 'GET',
    level: 'object',
    subresource: null,
    publicRead: true,
    treatment: FORWARDED,
  },
  {
    name: 'HeadObject',
    method: 'HEAD',
    level: 'object',
    subresource: null,
    publicRead: true,
    treatment: FORWARDED,
  },
  { name: 'PutObject', method: 'PUT', level: 'object', subresource: null, copy: false, treatment: FORWARDED },
  { name: 'CopyObject', method: 'PUT', level: 'object', subresource: null, copy: true, treatment: FORWARDED },
  { name: 'DeleteObject', method: 'DELETE', level: 'object', subresource: null, treatment: FORWARDED },
  {
    name: 'GetObjectAttributes',
    method: 'GET',
    level: 'object',
    subresource: 'attributes',
    treatment: {
      kind: 'answered',
      how: 'from a HEAD of the object at the store (Ceph RGW 16.2 answers it with the object itself); ObjectParts gives PartsCount only, from a multipart ETag, so max-parts and part-number-marker change nothing (S3 lists parts only for objects uploaded with checksums, which RGW 16.2 does not keep)',
    },
  },
  {
    name: 'GetObjectAcl',
    method: 'GET',
    level: 'object',
    subresource: 'acl',
    treatment: { kind: 'answered', how: "the owning organisation's full control" },
  },
  {
    name: 'PutObjectAcl',
    method: 'PUT',
    level: 'object',
    subresource: 'acl',
    treatment: {
      kind: 'answered',
      how: 'accepted when private (or the owner-only grant it reads back); any other grant is 501',
    },
  },
  { name: 'GetObjectTagging', method: 'GET', level: 'object', subresource: 'tagging', treatment: FORWARDED },
  { name: 'PutObjectTagging', method: 'PUT', level: 'object', subresource: 'tagging', treatment: FORWARDED },
  {
    name: 'DeleteObjectTagging',
    method: 'DELETE',
    level: 'object',
    subresource: 'tagging',
    treatment: FORWARDED,
  },
  {
    name: 'GetObjectRetention',
    method: 'GET',
    level: 'object',
    subresource: 'retention',
    treatment: FORWARDED,
  },
  {
    name: 'GetObjectLegalHold',
    method: 'GET',
    level: 'object',
    subresource: 'legal-hold',
    treatment: FORWARDED,
  },
  {
    name: 'PutObjectRetention',
    method: 'PUT',
    level: 'object',
    subresource: 'retention',
    treatment: OBJECT_LOCK_WRITE,
  },
  {
    name: 'PutObjectLegalHold',
    method: 'PUT',
    level: 'object',
    subresource: 'legal-hold',
    treatment: OBJECT_LOCK_WRITE,
  },
  {
    name: 'UpdateObjectEncryption',
    method: 'PUT',
    level: 'object',
    subresource: 'encryption',
    treatment: notOffered(
      "it re-keys an object's SSE-KMS encryption with AWS KMS keys, which neither Ceph RGW nor this gateway has",
    ),
  },
  {
    name: 'GetObjectAnnotation',
    method: 'GET',
    level: 'object',
    subresource: 'annotation',
    withId: true,
    treatment: OBJECT_ANNOTATIONS,
  },
  {
    name: 'ListObjectAnnotations',
    method: 'GET',
    level: 'object',
    subresource: 'annotation',
    withId: false,
    treatment: OBJECT_ANNOTATIONS,
  },
  {
    name: 'PutObjectAnnotation',
    method: 'PUT',
    level: 'object',
    subresource: 'annotation',
    treatment: OBJECT_ANNOTATIONS,
  },
  {
    name: 'DeleteObjectAnnotation',
    method: 'DELETE',
    level: 'object',
    subresource: 'annotation',
    treatment: OBJECT_ANNOTATIONS,
  },
  {
    name: 'GetObjectTorrent',
    method: 'GET',
    level: 'object',
    subresource: 'torrent',
    treatment: notOffered('BitTorrent delivery is not offered'),
  },
  {
    name: 'RestoreObject',
    method: 'POST',
    level: 'object',
    subresource: 'restore',
    treatment: notOffered('there is no archive storage class to restore from; only STANDARD is offered'),
  },
  {
    name: 'SelectObjectContent',
    method: 'POST',
    level: 'object',
    subresource: 'select',
    treatment: notOffered('S3 Select is not offered (AWS has closed it to new customers too)'),
  },
  {
    name: 'RenameObject',
    method: 'PUT',
    level: 'object',
    subresource: 'renameObject',
    treatment: DIRECTORY_BUCKETS,
  },
  {
    name: 'WriteGetObjectResponse',
    method: 'POST',
    level: 'service',
    subresource: null,
    treatment: notOffered('S3 Object Lambda is an AWS service'),
    unroutable: 'sent to an S3 Object Lambda endpoint',
  },
  {
    name: 'CreateMultipartUpload',
    method: 'POST',
    level: 'object',
    subresource: 'uploads',
    treatment: FORWARDED,
  },
  {
    name: 'UploadPart',
    method: 'PUT',
    level: 'object',
    subresource: 'uploadId',
    copy: false,
    treatment: FORWARDED,
  },
  {
    name: 'UploadPartCopy',
    method: 'PUT',
    level: 'object',
    subresource: 'uploadId',
    copy: true,
    treatment: FORWARDED,
  },
  {
    name: 'CompleteMultipartUpload',
    method: 'POST',
    level: 'object',
    subresource: 'uploadId',
    treatment: {
      kind: 'answered',
      how: 'checked (parts of at least 5 MiB as the store holds them; their total against a storage quota), then sent on',
    },
  },
  {
    name: 'AbortMultipartUpload',
    method: 'DELETE',
    level: 'object',
    subresource: 'uploadId',
    treatment: FORWARDED,
  },
  { name: 'ListParts', method: 'GET', level: 'object', subresource: 'uploadId', treatment: FORWARDED },
] as const satisfies readonly CatalogueEntry[];

/** An operation the storage endpoint offers (forwards or answers): the `operation` metric label's values. */
export type OfferedOperationName = Extract<
  (typeof OPERATION_CATALOGUE)[number],
  { readonly treatment: { readonly kind: 'forwarded' | 'answered' } }
>['name'];

/** An operation the gateway answers itself, never sending it to the store as it came. */
export type AnsweredOperationName = Extract<
  (typeof OPERATION_CATALOGUE)[number],
  { readonly treatment: { readonly kind: 'answered' } }
>['name'];
