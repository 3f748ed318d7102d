/**
 * What the storage pipeline knows about a request at each step. Each step takes one stage and
 * returns the next, so a later step cannot run on a request an earlier one has not vouched for:
 *
 *   Arrived → Addressed → Authenticated → Authorised → Planned
 */
import type { HeaderMap } from '../protocol/headers.js';
import type { QueryParameter } from '../protocol/query.js';
import type { BucketEntry } from '../store/access-cache.js';
import type { CredentialRecord, OrganisationRecord } from '../store/records.js';
import type { BodyPlan, BodyPlanResult } from '../sigv4/body-plan.js';
import type { AuthenticationForm } from '../sigv4/verify.js';
import type { CopySource } from '../protocol/copy-source.js';
import type { Exchange } from './exchange.js';
import type { Classification, Level, S3Operation } from './operations.js';

/** The request target taken apart; nothing judged yet. */
export interface Arrived {
  readonly exchange: Exchange;
  /** The path exactly as received, still percent-encoded. */
  readonly rawPath: string;
  readonly query: readonly QueryParameter[];
  /** True when the request carries a signature in either form (it goes on to verification). */
  readonly signed: boolean;
}

/** Which bucket and key, which operation, and the headers the request means. */
export interface Addressed extends Arrived {
  readonly style: 'path' | 'virtual-hosted';
  /** Null for the service root (ListBuckets). */
  readonly bucket: string | null;
  /** The object key, decoded; '' for bucket and service requests. */
  readonly key: string;
  readonly level: Level;
  /** Received headers plus headers hoisted into a presigned URL's query. */
  readonly headers: HeaderMap;
  readonly classification: Classification;
}

/** A credential's identity: who signed the request, and how. */
export type CredentialIdentity = Extract<Identity, { readonly kind: 'credential' }>;

export type Identity =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'credential';
      readonly credential: CredentialRecord;
      readonly form: AuthenticationForm;
      /** What the signature says the body is (hex digest, UNSIGNED-PAYLOAD or a streaming mode). */
      readonly payloadMode: string;
    };

export interface Authenticated extends Addressed {
  readonly identity: Identity;
  /** How the body must be decoded and verified, or why it is refused. */
  readonly bodyPlan: BodyPlanResult;
}

export interface Authorised extends Authenticated {
  readonly operation: S3Operation;
  /** The addressed bucket (null for the service root). */
  readonly entry: BucketEntry | null;
  /** The organisation the request acts for. */
  readonly organisation: OrganisationRecord;
  /** CopyObject and UploadPartCopy: the source, authorised for reading. */
  readonly copySource: CopySource | null;
}

/** Ready to be answered or forwarded: every refusal that needs no body is behind it. */
export interface Planned extends Authorised {
  readonly body: BodyPlan;
}

/** A stage of a request to a bucket or one of its objects, whose bucket authorisation found. */
export type InBucket<Stage extends Authorised> = Stage & {
  readonly bucket: string;
  readonly entry: BucketEntry;
};

/** True for every request but the service root's (ListBuckets): it names a bucket, and it exists. */
export function isInBucket<Stage extends Authorised>(stage: Stage): stage is InBucket<Stage> {
  return stage.bucket !== null && stage.entry !== null;
}
