/**
 * The head of a browser form upload (POST Object, multipart/form-data): every field up to the
 * file, which S3 requires to be the last one. Only that head is read here (at most
 * {@link MAX_FORM_HEAD_BYTES}); the file itself streams on to the store (upstream/form-file.ts).
 * Its length is known before any of it is read: the request's Content-Length, less the head, less
 * the closing delimiter that must follow the file.
 */
import busboy from 'busboy';
import { S3Error } from '../../protocol/errors.js';
import type { Exchange } from '../exchange.js';
import { watchUploadBody } from '../body-idle.js';

/** What may come before the file: the fields and the file part's own headers. */
export const MAX_FORM_HEAD_BYTES = 64 * 1024;

export interface FormHead {
  /** The fields before the file, by lower-case name (the first of a repeated name). */
  readonly fields: ReadonlyMap<string, string>;
  /** The file's name as the form gives it (for `${filename}` in the key). */
  readonly filename: string;
  /** Bytes of the file. */
  readonly fileLength: number;
  /** What must follow the file: the closing delimiter, `\r\n--boundary--\r\n`. */
  readonly closing: Buffer;
  /** The first bytes after the file part's headers, read with the head. */
  readonly rest: Buffer;
}

/** The boundary of a multipart/form-data Content-Type, or null. */
export function formBoundary(contentType: string | undefined): string | null {
  if (contentType === undefined || !/^\s*multipart\/form-data\s*;/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

/**
 * Where the file's bytes start in `head` (after its part's headers), 'no-file' when the form ends
 * without one, or null while the head is incomplete. The file part is the one whose
 * Content-Disposition names it `file`.
 */
export function fileDataStart(head: Buffer, boundary: string): number | 'no-file' | null {
  const text = head.toString('latin1');
  const delimiter = `--${boundary}`;
  let at = text.startsWith(delimiter) ? 0 : text.indexOf(`\r\n${delimiter}`);
  while (at !== -1) {
    const afterDelimiter = at + (text.startsWith(delimiter, at) ? 0 : 2) + delimiter.length;
    if (text.length < afterDelimiter + 2) return null;
    if (text.startsWith('--', afterDelimiter)) return 'no-file';
    const headersEnd = text.indexOf('\r\n\r\n', afterDelimiter);
    if (headersEnd === -1) return null;
    const disposition = /^content-disposition:([^\r\n]*)$/im.exec(
      text.slice(afterDelimiter, headersEnd),
    )?.[1];
    if (disposition !== undefined && /;\s*name="?file"?\s*(?:;|$)/i.test(disposition)) return headersEnd + 4;
    at = text.indexOf(`\r\n${delimiter}`, headersEnd);
  }
  return null;
}

/** The fields and the file's name, parsed (busboy) from the head closed off after the file's headers. */
function parseHead(
  head: Buffer,
  contentType: string,
  boundary: string,
): Promise<{ fields: Map<string, string>; filename: string }> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    let filename = '';
    const parser = busboy({
      headers: { 'content-type': contentType },
      limits: { fieldSize: MAX_FORM_HEAD_BYTES, files: 1, parts: 1000 },
    });
    parser.on('field', (name, value) => {
      const lower = name.toLowerCase();
      if (!fields.has(lower)) fields.set(lower, value);
    });
    parser.on('file', (_name, stream, info) => {
      filename = info.filename ?? '';
      stream.resume();
    });
    parser.once('error', () => reject(new S3Error('MalformedPOSTRequest')));
    parser.once('close', () => resolve({ fields, filename }));
    parser.end(Buffer.concat([head, Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1')]));
  });
}

/** Reads the form up to its file's first byte; the request is left paused there. */
export async function readFormHead(exchange: Exchange): Promise<FormHead> {
  const { request } = exchange;
  const contentType = request.headers['content-type'];
  const boundary = formBoundary(contentType);
  if (boundary === null || contentType === undefined) throw new S3Error('MalformedPOSTRequest');
  const contentLength = Number(request.headers['content-length'] ?? Number.NaN);
  if (!Number.isSafeInteger(contentLength)) throw new S3Error('MissingContentLength');
  exchange.allowBody();

  const { head, dataStart } = await new Promise<{ head: Buffer; dataStart: number }>((resolve, reject) => {
    let head: Buffer = Buffer.alloc(0);
    const stopWatching = watchUploadBody(exchange, (error) => done(error));
    const done = (error: S3Error | null, dataStart = 0): void => {
      stopWatching();
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onEnd);
      request.pause();
      if (error === null) resolve({ head, dataStart });
      else reject(error);
    };
    const onData = (chunk: Buffer): void => {
      exchange.bytesIn += chunk.length;
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const start = fileDataStart(head, boundary);
      if (start === 'no-file') done(new S3Error('PostMissingFile'));
      else if (start !== null && start <= MAX_FORM_HEAD_BYTES) done(null, start);
      else if (head.length > MAX_FORM_HEAD_BYTES) done(new S3Error('PostFieldsTooLarge'));
    };
    const onEnd = (): void => done(new S3Error(request.complete ? 'PostMissingFile' : 'IncompleteBody'));
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('close', onEnd);
  });

  const closing = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
  const fileLength = contentLength - dataStart - closing.length;
  if (fileLength < 0) throw new S3Error('MalformedPOSTRequest');
  const { fields, filename } = await parseHead(head.subarray(0, dataStart), contentType, boundary);
  return { fields, filename, fileLength, closing, rest: head.subarray(dataStart) };
}
