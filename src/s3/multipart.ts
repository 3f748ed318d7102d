/**
 * CompleteMultipartUpload with the 5 MiB rule enforced at the gateway: every part but the last
 * must be at least 5 MiB. The completion body is small XML, read whole (bounded) and verified;
 * the part sizes come from the backend's ListParts, re-signed by the gateway. A backend that
 * cannot list parts leaves the rule to the backend (the embedded store has no ListParts and
 * enforces it in its completion: embedded-s3-child.cjs). The
 * completion then goes on with the body that was read (multipart-completion.ts: RGW's empty ETag).
 */
import { queryValue, type S3Address } from './address.js';
import { serviceUnavailable } from './backend-answers.js';
import { backendCall, BackendUnavailableError } from '../backend/connection.js';
import { planBody, readBody } from './body.js';
import type { S3Dependencies } from './dependencies.js';
import { S3Error } from './errors.js';
import type { S3Exchange } from './exchange.js';
import { backendPath } from './forward.js';
import { forwardCompletion } from './multipart-completion.js';
import type { HeaderMap } from './request-headers.js';
import { childList, childText, parseXml } from './xml.js';

export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** 10,000 parts of about 130 bytes of XML each, with room to spare. */
export const MAX_COMPLETION_BODY_BYTES = 4 * 1024 * 1024;
/** ListParts answers 1,000 parts per page; S3 allows 10,000 parts. */
const MAX_LIST_PAGES = 10;
const MAX_PART_NUMBER = 10_000;

export interface CompletedPart {
  readonly partNumber: number;
  readonly etag: string;
}

function partNumberOf(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,5}$/.test(text)) return null;
  const number = Number(text);
  return number >= 1 && number <= MAX_PART_NUMBER ? number : null;
}

/** The parts a CompleteMultipartUpload body names, in the order given. */
export function parseCompletedParts(body: Buffer): CompletedPart[] {
  const document = parseXml(body.toString('utf8'), ['Part']);
  const root = document?.CompleteMultipartUpload;
  const parts = childList(root, 'Part');
  if (parts.length === 0) throw new S3Error('MalformedXML');
  return parts.map((part) => {
    const partNumber = partNumberOf(childText(part, 'PartNumber'));
    const etag = childText(part, 'ETag');
    if (partNumber === null || etag === undefined) throw new S3Error('MalformedXML');
    return { partNumber, etag };
  });
}

export interface ListPartsPage {
  readonly sizes: ReadonlyMap<number, number>;
  /** The marker of the next page, or null when this was the last. */
  readonly nextMarker: string | null;
}

/** One ListPartsResult page; null when the document is not one. */
export function parseListPartsPage(xml: string): ListPartsPage | null {
  const root = parseXml(xml, ['Part'])?.ListPartsResult;
  if (root === undefined || root === null || typeof root !== 'object') return null;
  const sizes = new Map<number, number>();
  for (const part of childList(root, 'Part')) {
    const partNumber = partNumberOf(childText(part, 'PartNumber'));
    const size = Number(childText(part, 'Size'));
    if (partNumber === null || !Number.isSafeInteger(size)) return null;
    sizes.set(partNumber, size);
  }
  const truncated = childText(root, 'IsTruncated') === 'true';
  const nextMarker = childText(root, 'NextPartNumberMarker');
  return {
    sizes,
    nextMarker: truncated && nextMarker !== undefined && nextMarker !== '' ? nextMarker : null,
  };
}

/** Fetches one ListParts page (status and raw body) after `marker`. */
export type ListPartsFetcher = (marker: string | null) => Promise<{ status: number; body: string }>;

/** Sizes of every uploaded part, or null when the backend does not answer ListParts. */
export async function uploadedPartSizes(fetchPage: ListPartsFetcher): Promise<Map<number, number> | null> {
  const sizes = new Map<number, number>();
  let marker: string | null = null;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const answer = await fetchPage(marker);
    if (answer.status !== 200) return null;
    const parsed = parseListPartsPage(answer.body);
    if (parsed === null) return null;
    for (const [partNumber, size] of parsed.sizes) sizes.set(partNumber, size);
    if (parsed.nextMarker === null) return sizes;
    marker = parsed.nextMarker;
  }
  return sizes;
}

/** The first non-final part (in completion order) listed smaller than 5 MiB, or null. */
export function findUndersizedPart(
  completed: readonly CompletedPart[],
  sizes: ReadonlyMap<number, number>,
): CompletedPart | null {
  for (const part of completed.slice(0, -1)) {
    const size = sizes.get(part.partNumber);
    if (size !== undefined && size < MIN_PART_BYTES) return part;
  }
  return null;
}

/** Reads and checks a CompleteMultipartUpload, then sends it on with the body that was read. */
export async function completeMultipartUpload(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  headers: HeaderMap,
  payloadHash: string | undefined,
): Promise<void> {
  const address = exchange.address as S3Address;
  const plan = planBody(headers, { payloadHash, checksumHeadersDescribeObject: true });
  const bytes = await readBody(exchange, plan, MAX_COMPLETION_BODY_BYTES, 'MalformedXML');
  const completed = parseCompletedParts(bytes);

  const uploadId = queryValue(address, 'uploadId') ?? '';
  const fetchPage: ListPartsFetcher = async (marker) => {
    const query = [
      { name: 'uploadId', value: uploadId, bare: false },
      { name: 'max-parts', value: '1000', bare: false },
      ...(marker === null ? [] : [{ name: 'part-number-marker', value: marker, bare: false }]),
    ];
    const answer = await backendCall(
      dependencies.context.backend.endpoint,
      dependencies.agent,
      dependencies.signer,
      { method: 'GET', path: backendPath(address), query, headers: {} },
      { timeoutMs: dependencies.backendTimeoutMs, maxBytes: 8 * 1024 * 1024 },
    );
    return { status: answer.status, body: answer.body.toString('utf8') };
  };
  let sizes: Map<number, number> | null;
  try {
    sizes = await uploadedPartSizes(fetchPage);
  } catch (error) {
    if (error instanceof BackendUnavailableError) throw serviceUnavailable(exchange, dependencies, error);
    throw error;
  }
  if (sizes !== null && findUndersizedPart(completed, sizes) !== null) throw new S3Error('EntityTooSmall');

  await forwardCompletion(exchange, dependencies, { headers, plan, body: bytes });
}
