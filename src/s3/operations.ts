/**
 * Classifies a request into a named S3 operation by the catalogue (operation-catalogue.ts).
 * Whatever the catalogue does not offer is refused before it can reach the shared backend:
 * bucket-level writes (bucket configuration belongs to the control plane) with 405
 * MethodNotAllowed, everything else with 501 NotImplemented. Operation names double as the
 * `operation` metrics label, so the label set is closed.
 */
import type { S3ErrorKey } from '../protocol/errors.js';
import { isValidPartNumber } from '../protocol/limits.js';
import { isHoistedHeaderParameter, isPresignAuthParameter, type QueryParameter } from '../protocol/query.js';
import {
  OPERATION_CATALOGUE,
  type AnsweredOperationName,
  type CatalogueEntry,
  type Level,
  type OfferedOperationName,
} from './operation-catalogue.js';

export type { AnsweredOperationName };

const ANSWERED: ReadonlySet<string> = new Set(
  (OPERATION_CATALOGUE as readonly CatalogueEntry[])
    .filter((entry) => entry.treatment.kind === 'answered')
    .map((entry) => entry.name),
);

export function isAnswered(name: OperationName): name is AnsweredOperationName {
  return ANSWERED.has(name);
}

export type OperationName = OfferedOperationName | 'CorsPreflight';

/** Labels for requests that never got (or never had) an operation. */
export type UnclassifiedLabel = 'Unclassified' | 'BucketConfigurationWrite' | 'NotImplemented';

/** The operation label of a request in metrics and the access log. */
export type OperationLabel = OperationName | UnclassifiedLabel;

export type { Level };

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
  | {
      readonly ok: false;
      readonly error: S3ErrorKey;
      readonly label: UnclassifiedLabel;
      /** For an operation of the catalogue that is not offered: its name and why. */
      readonly notOffered?: { readonly name: string; readonly reason: string };
      /** Elements the error document adds (ArgumentName, ArgumentValue). */
      readonly details?: Readonly<Record<string, string>>;
    };

/** Query parameters that select an operation (S3's subresources). Any of them not routed below is refused. */
const SUBRESOURCES: ReadonlySet<string> = new Set([
  'abac',
  'accelerate',
  'acl',
  'analytics',
  'annotation',
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
  'metadataAnnotationTable',
  'metadataConfiguration',
  'metadataInventoryTable',
  'metadataJournalTable',
  'metadataTable',
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
  'version-id-marker',
  // The per-configuration bucket reads (analytics, inventory, metrics, intelligent tiering).
  'id',
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

/**
 * Writes that make a new object or part take no versionId, as S3 answers: the store would ignore
 * it, but the gateway's accounting of what a write replaces (limits/storage-quotas.ts) must not.
 */
const VERSIONLESS_WRITES: ReadonlySet<OperationName> = new Set([
  'PutObject',
  'CopyObject',
  'CreateMultipartUpload',
  'UploadPart',
  'UploadPartCopy',
  'CompleteMultipartUpload',
]);

/** The writes of one part of a multipart upload: they must say which. */
const PART_WRITES: ReadonlySet<OperationName> = new Set(['UploadPart', 'UploadPartCopy']);

function operation(entry: CatalogueEntry): S3Operation {
  return {
    name: entry.name as OfferedOperationName,
    level: entry.level,
    scopeMethod: entry.scopeMethod ?? entry.method,
    publicRead: entry.publicRead === true,
  };
}

function routeKey(
  method: string,
  level: Level,
  subresource: string | null,
  copy: boolean,
  withId: boolean,
): string {
  return `${method} ${level} ${subresource ?? ''} ${copy ? 'copy' : ''} ${withId ? 'id' : ''}`;
}

const notImplemented = {
  ok: false,
  error: 'OperationNotImplemented',
  label: 'NotImplemented',
} as const satisfies Classification;

const bucketConfigurationWrite: Classification = {
  ok: false,
  error: 'MethodNotAllowed',
  label: 'BucketConfigurationWrite',
};

function classificationOf(entry: CatalogueEntry): Classification {
  switch (entry.treatment.kind) {
    case 'forwarded':
    case 'answered':
      return { ok: true, operation: operation(entry) };
    case 'bucket-write':
      return bucketConfigurationWrite;
    case 'not-offered':
      return { ...notImplemented, notOffered: { name: entry.name, reason: entry.treatment.reason } };
  }
}

/** Every routable catalogue entry under each key it answers to, classified once. */
const ROUTE_TABLE: ReadonlyMap<string, Classification> = (() => {
  const table = new Map<string, Classification>();
  for (const entry of OPERATION_CATALOGUE as readonly CatalogueEntry[]) {
    if (entry.unroutable !== undefined || entry.selector !== undefined) continue;
    const copies = entry.copy === undefined ? [false, true] : [entry.copy];
    const ids = entry.withId === undefined ? [false, true] : [entry.withId];
    for (const copy of copies) {
      for (const withId of ids) {
        const key = routeKey(entry.method, entry.level, entry.subresource, copy, withId);
        if (table.has(key)) throw new Error(`two catalogue entries route ${key}`);
        table.set(key, classificationOf(entry));
      }
    }
  }
  return table;
})();

const LIST_OBJECTS_V2 = operation(
  (OPERATION_CATALOGUE as readonly CatalogueEntry[]).find(
    (entry) => entry.selector === 'list-type=2',
  ) as CatalogueEntry,
);

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
  if (method === 'OPTIONS') {
    return { ok: true, operation: { name: 'CorsPreflight', level, scopeMethod: method, publicRead: false } };
  }
  // Creating, deleting or configuring a bucket is the control plane's job, whatever the subresource.
  if (level === 'bucket' && (method === 'PUT' || method === 'DELETE')) return bucketConfigurationWrite;

  let subresource: string | null = null;
  let listV2 = false;
  let withId = false;
  /** A parameter no offered operation takes: the request cannot be forwarded as it is. */
  let unforwardable = false;
  for (const { name, value } of query) {
    if (SUBRESOURCES.has(name)) {
      if (subresource !== null && subresource !== name) return notImplemented;
      subresource = name;
    } else if (REFINING_PARAMETERS.has(name)) {
      if (name === 'list-type' && value === '2') listV2 = true;
      else if (name === 'id') withId = true;
    } else if (name === 'annotationName') {
      // Names one annotation (GetObjectAnnotation rather than ListObjectAnnotations); neither is offered.
      withId = true;
      unforwardable = true;
    } else if (!isPresignAuthParameter(name) && !isHoistedHeaderParameter(name)) {
      unforwardable = true;
    }
  }
  const found = ROUTE_TABLE.get(routeKey(method, level, subresource, copy, withId));
  if (found === undefined) return notImplemented;
  // An operation refused anyway is named, with its reason, whatever else its query holds.
  if (!found.ok) return found;
  if (unforwardable) return notImplemented;
  const versionId = query.find((parameter) => parameter.name === 'versionId');
  if (versionId !== undefined && VERSIONLESS_WRITES.has(found.operation.name)) {
    return {
      ok: false,
      error: 'VersionIdNotAccepted',
      label: 'Unclassified',
      details: { ArgumentName: 'versionId', ArgumentValue: versionId.value },
    };
  }
  // UploadPart and UploadPartCopy name their part; a read may name one (GetObject, HeadObject).
  const partNumber = query.find((parameter) => parameter.name === 'partNumber');
  if (
    (partNumber === undefined && PART_WRITES.has(found.operation.name)) ||
    (partNumber !== undefined && !isValidPartNumber(partNumber.value))
  ) {
    return {
      ok: false,
      error: 'InvalidPartNumber',
      label: 'Unclassified',
      details: { ArgumentName: 'partNumber', ArgumentValue: partNumber?.value ?? '' },
    };
  }
  if (found.operation.name === 'ListObjects' && listV2) return { ok: true, operation: LIST_OBJECTS_V2 };
  return found;
}
