/**
 * CompleteMultipartUpload, checked and sent by the gateway:
 *
 * - The 5 MiB rule is enforced here: every part but the last must be at least 5 MiB, judged by
 *   the parts as the store holds them (its ListParts, re-signed by the gateway), each identified
 *   by number and ETag, since a part sent twice is listed as the store keeps it. A store that
 *   cannot list parts leaves the rule to the store (the embedded store has no ListParts and
 *   enforces it in its completion: embedded-s3-child.cjs).
 * - The completion body is small XML, read whole (bounded) and verified, then sent on as read.
 * - Ceph RGW 16.2 completes with an empty `<ETag></ETag>` (scripts/ceph-rgw/README.md): the
 *   gateway then HEADs the object just assembled and fills its ETag in.
 * - Under a storage quota, the object's size (the sum of the parts it is made of, as the store
 *   lists them) is admitted before the completion is sent (limits/storage-quotas.ts).
 * - The answer is small, so it is read whole rather than streamed; only the whitespace a store
 *   sends ahead of a 200's document while it works goes to the client as it arrives, so the
 *   client's connection is kept alive as the store meant it to be.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { S3Error } from '../../protocol/errors.js';
import { firstHeaderValue } from '../../protocol/headers.js';
import { MAX_PART_NUMBER, MIN_PART_BYTES } from '../../protocol/limits.js';
import { queryParameter, queryValue } from '../../protocol/query.js';
import { childList, childText, escapeXml, parseXml } from '../../protocol/xml.js';
import { readAnswer } from '../../backend/connection.js';
import { writeHead } from '../respond.js';
import type { InBucket, Planned } from '../stages.js';
import { readBody } from './body.js';
import { backendRequestOf } from './forward.js';
import {
  backendFailure,
  clientResponseHeaders,
  errorCodeOf,
  errorForBareStatus,
  finishWithDocument,
  isXmlAnswer,
  recordStoreAnswer,
  relayedXmlAnswer,
} from './outcome.js';
import { customerKeyHeaders, headObject } from './probe.js';
import type { Upstream } from './upstream.js';

/** 10,000 parts of about 130 bytes of XML each, with room to spare. */
export const MAX_COMPLETION_BODY_BYTES = 4 * 1024 * 1024;
/** ListParts answers 1,000 parts per page; S3 allows 10,000 parts. */
const MAX_LIST_PAGES = 10;
/** A completion answer is a few hundred bytes, an error document not much more. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface CompletedPart {
  readonly partNumber: number;
  readonly etag: string;
}

/** A part as the store lists it. */
export interface StoredPart {
  readonly etag: string;
  readonly size: number;
}

function partNumberOf(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,5}$/.test(text)) return null;
  const number = Number(text);
  return number >= 1 && number <= MAX_PART_NUMBER ? number : null;
}

/** An ETag without its quotes, for comparing spellings of one value. */
function bareEtag(etag: string): string {
  return etag
    .trim()
    .replace(/^"|"$/g, '')
    .replace(/^&quot;|&quot;$/g, '');
}

/** The parts a CompleteMultipartUpload body names, in the order given. */
export function parseCompletedParts(body: Buffer): CompletedPart[] {
  const document = parseXml(body.toString('utf8'), ['Part']);
  const parts = childList(document?.CompleteMultipartUpload, 'Part');
  if (parts.length === 0) throw new S3Error('MalformedXML');
  return parts.map((part) => {
    const partNumber = partNumberOf(childText(part, 'PartNumber'));
    const etag = childText(part, 'ETag');
    if (partNumber === null || etag === undefined) throw new S3Error('MalformedXML');
    return { partNumber, etag };
  });
}

export interface ListPartsPage {
  readonly parts: ReadonlyMap<number, readonly StoredPart[]>;
  /** The marker of the next page, or null when this was the last. */
  readonly nextMarker: string | null;
}

/** One ListPartsResult page; null when the document is not one. */
export function parseListPartsPage(xml: string): ListPartsPage | null {
  const root = parseXml(xml, ['Part'])?.ListPartsResult;
  if (root === undefined || root === null || typeof root !== 'object') return null;
  const parts = new Map<number, StoredPart[]>();
  for (const part of childList(root, 'Part')) {
    const partNumber = partNumberOf(childText(part, 'PartNumber'));
    const size = Number(childText(part, 'Size'));
    if (partNumber === null || !Number.isSafeInteger(size)) return null;
    const listed = parts.get(partNumber) ?? [];
    listed.push({ etag: bareEtag(childText(part, 'ETag') ?? ''), size });
    parts.set(partNumber, listed);
  }
  const truncated = childText(root, 'IsTruncated') === 'true';
  const nextMarker = childText(root, 'NextPartNumberMarker');
  return {
    parts,
    nextMarker: truncated && nextMarker !== undefined && nextMarker !== '' ? nextMarker : null,
  };
}

/** Fetches one ListParts page (status and raw body) after `marker`. */
export type ListPartsFetcher = (marker: string | null) => Promise<{ status: number; body: string }>;

/**
 * Every part the store holds; 'no-such-bucket' or 'no-such-upload' when the store answers 404
 * (the bucket only when its error document says so), null when it does not answer ListParts at all.
 */
export async function storedParts(
  fetchPage: ListPartsFetcher,
): Promise<Map<number, StoredPart[]> | 'no-such-bucket' | 'no-such-upload' | null> {
  const parts = new Map<number, StoredPart[]>();
  let marker: string | null = null;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const answer = await fetchPage(marker);
    if (answer.status === 404)
      return errorCodeOf(answer.body) === 'NoSuchBucket' ? 'no-such-bucket' : 'no-such-upload';
    if (answer.status !== 200) return null;
    const parsed = parseListPartsPage(answer.body);
    if (parsed === null) return null;
    for (const [partNumber, listed] of parsed.parts)
      parts.set(partNumber, [...(parts.get(partNumber) ?? []), ...listed]);
    if (parsed.nextMarker === null) return parts;
    marker = parsed.nextMarker;
  }
  return parts;
}

/**
 * The first non-final part (in completion order) that the store holds smaller than 5 MiB, or
 * null. A part is the one of its number whose ETag the completion names; when the store lists
 * none with that ETag, the store itself refuses the completion (InvalidPart).
 */
export function findUndersizedPart(
  completed: readonly CompletedPart[],
  stored: ReadonlyMap<number, readonly StoredPart[]>,
): CompletedPart | null {
  for (const part of completed.slice(0, -1)) {
    const wanted = bareEtag(part.etag);
    const held = stored.get(part.partNumber)?.find((candidate) => candidate.etag === wanted);
    if (held !== undefined && held.size < MIN_PART_BYTES) return part;
  }
  return null;
}

/**
 * The size of the object a completion assembles: the parts it names, each as the store holds it
 * (by number and ETag). A part the store does not hold counts nothing: the store refuses the
 * completion (InvalidPart) anyway.
 */
export function completedSize(
  completed: readonly CompletedPart[],
  stored: ReadonlyMap<number, readonly StoredPart[]>,
): number {
  let size = 0;
  for (const part of completed) {
    const wanted = bareEtag(part.etag);
    size += stored.get(part.partNumber)?.find((candidate) => candidate.etag === wanted)?.size ?? 0;
  }
  return size;
}

const EMPTY_ETAG = /<ETag\s*\/>|<ETag>\s*<\/ETag>/;

/** True when the document is a CompleteMultipartUploadResult with an empty ETag element. */
export function lacksEtag(document: string): boolean {
  const result = parseXml(document.trimStart())?.CompleteMultipartUploadResult;
  return childText(result, 'ETag') === '' && EMPTY_ETAG.test(document);
}

/** The document with `etag` in its empty ETag element; any other document unchanged. */
export function fillEtag(document: string, etag: string): string {
  if (!lacksEtag(document)) return document;
  return document.replace(EMPTY_ETAG, () => `<ETag>${escapeXml(etag)}</ETag>`);
}

/**
 * What a storage quota does around a completion (limits/storage-quotas.ts): `admit` refuses an object too
 * large for it (its size null when the store lists no parts); `beforeAnswer` records the outcome
 * before the client hears it.
 */
export interface CompletionQuota {
  admit(size: number | null): Promise<void>;
  beforeAnswer(succeeded: boolean): Promise<void>;
}

/** Reads and checks a CompleteMultipartUpload, then sends it on with the body that was read. */
export async function completeMultipartUpload(
  stage: InBucket<Planned>,
  upstream: Upstream,
  quota?: CompletionQuota,
): Promise<void> {
  const { exchange } = stage;
  const bytes = await readBody(exchange, stage.body, MAX_COMPLETION_BODY_BYTES, 'MalformedXML');
  const completed = parseCompletedParts(bytes);

  const uploadId = queryValue(stage.query, 'uploadId') ?? '';
  const fetchPage: ListPartsFetcher = async (marker) => {
    const query = [
      queryParameter('uploadId', uploadId),
      queryParameter('max-parts', '1000'),
      ...(marker === null ? [] : [queryParameter('part-number-marker', marker)]),
    ];
    const spec = { method: 'GET', path: backendRequestOf(stage).path, query, headers: {} };
    const answer = await upstream.connection.call(spec, { maxBytes: 8 * 1024 * 1024 });
    return { status: answer.status, body: answer.body.toString('utf8') };
  };
  let stored: Awaited<ReturnType<typeof storedParts>>;
  try {
    stored = await storedParts(fetchPage);
  } catch (error) {
    throw backendFailure(exchange, upstream, error);
  }
  // Ceph RGW 16.2 answers a completion of an unknown upload with 500; its ListParts knows better,
  // and tells a bucket missing from the store from an upload missing from the bucket.
  if (stored === 'no-such-upload') throw new S3Error('NoSuchUpload');
  if (stored === 'no-such-bucket') throw new S3Error('NoSuchBucket');
  if (stored !== null && findUndersizedPart(completed, stored) !== null) throw new S3Error('EntityTooSmall');
  await quota?.admit(stored === null ? null : completedSize(completed, stored));

  await sendCompletion(stage, upstream, bytes, quota);
}

async function sendCompletion(
  stage: InBucket<Planned>,
  upstream: Upstream,
  body: Buffer,
  quota: CompletionQuota | undefined,
): Promise<void> {
  const { exchange } = stage;
  const spec = backendRequestOf(stage, { 'content-length': String(body.length) });
  const startedAt = performance.now();
  let answer;
  try {
    answer = await upstream.connection.request(spec, body);
  } catch (error) {
    throw backendFailure(exchange, upstream, error);
  }
  const status = answer.status;
  recordStoreAnswer(exchange, upstream.metrics, status, startedAt);

  const headers = clientResponseHeaders(answer.headers);
  const keepAlive = (whitespace: Buffer) => sendWhitespace(stage, headers, whitespace);
  let document: Buffer;
  try {
    document = await readAnswer(answer.body, MAX_ANSWER_BYTES, status === 200 ? keepAlive : undefined);
  } catch (error) {
    // Once whitespace went out this cannot be told: the client's answer is cut short instead.
    throw backendFailure(exchange, upstream, error);
  }
  if (exchange.response.destroyed) return;

  let text = document.toString('utf8');
  if (status === 200 && lacksEtag(text)) {
    const version = answer.headers['x-amz-version-id'];
    const etag = await assembledEtag(stage, upstream, typeof version === 'string' ? version : undefined);
    if (etag !== null) text = fillEtag(text, etag);
  } else if (status >= 300 && isXmlAnswer(answer.headers)) {
    const relayed = relayedXmlAnswer(text, exchange.id, status, 'POST', true);
    if (typeof relayed !== 'string') throw relayed;
    text = relayed;
  } else {
    const bare = errorForBareStatus(status, 'POST', true);
    if (bare !== null) throw bare;
  }
  // A 200 can carry an error document: only one without is a completed upload.
  await quota?.beforeAnswer(errorCodeOf(text) === undefined && status < 300);
  finishWithDocument(exchange, status, headers, text, exchange.response.headersSent);
}

/** The 200 head (chunked: the document's length is not known yet) and whitespace, as they come. */
function sendWhitespace(stage: Planned, headers: http.OutgoingHttpHeaders, whitespace: Buffer): void {
  const { exchange } = stage;
  if (exchange.response.destroyed) return;
  const chunked = { ...headers };
  delete chunked['content-length'];
  writeHead(exchange, 200, chunked);
  exchange.response.write(whitespace);
  exchange.bytesOut += whitespace.length;
}

/**
 * The ETag of the object the completion assembled, from a HEAD of it: of the version the
 * completion created when there is one, else of the key (a write in between would win there, as
 * it does for every reader). Null when it is not to be had; the client then gets the completion
 * as the backend answered it, which succeeded all the same.
 */
async function assembledEtag(
  stage: InBucket<Planned>,
  upstream: Upstream,
  versionId: string | undefined,
): Promise<string | null> {
  const { exchange } = stage;
  let etag: string | undefined;
  try {
    const answer = await headObject(
      exchange,
      upstream,
      { bucket: stage.bucket, key: stage.key, versionId: versionId ?? null },
      customerKeyHeaders(stage.headers, 'object'),
    );
    etag = answer.status === 200 ? firstHeaderValue(answer.headers, 'etag') : undefined;
  } catch {
    // Counted and logged by the probe: the completion stands without its ETag filled in.
  }
  if (typeof etag === 'string' && etag !== '') return etag;
  upstream.logger.warn({ requestId: exchange.id, etag }, 'no ETag for the completed multipart upload');
  return null;
}
