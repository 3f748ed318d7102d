/**
 * An object store for tests that need to see what the gateway forwards: an embedded s3rver behind
 * an HTTP front that records every request it receives (method, target, headers, body size,
 * whether its SigV4 signature is valid for the backend credentials) and fills two gaps where
 * s3rver is not like S3 or Ceph RGW:
 * - uploads are atomic: a body is handed to s3rver only once it arrived complete (s3rver writes
 *   straight to the object's file, so a cut-off upload would leave a partial object behind);
 * - ListParts is answered from the part uploads seen (s3rver has no ListParts).
 * A test can also have CompleteMultipartUpload answered like another store would: with
 * {@link rgwEmptyEtag} as Ceph RGW 16.2 does, or with whitespace ahead of the document as S3 does.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedS3 } from '../../../src/backend/embedded-s3.js';
import { verifyTarget } from '../sigv4.js';

export interface RecordedRequest {
  method: string;
  target: string;
  headers: http.IncomingHttpHeaders;
  bodyBytes: number;
  /** False when the client went away before the body it announced was complete. */
  bodyComplete: boolean;
  /** True once the gateway closed this request before its body was complete (an aborted upload). */
  abandoned: boolean;
  signatureValid: boolean;
  status: number | null;
}

export interface RecordingBackend {
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  requests: RecordedRequest[];
  /**
   * Rewrites s3rver's 200 answer to CompleteMultipartUpload into the chunks sent instead, each on
   * its own (chunked); null sends it on as it is.
   */
  rewriteCompletion: ((document: string) => string[]) | null;
  /** The status to answer a HEAD of this target with instead of the store's (a store that fails); null asks the store. */
  failHead: ((target: string) => number | null) | null;
  /** The environment that points a test gateway at this backend. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** A part as the store keeps it (the last upload of its number wins). */
interface StoredPart {
  readonly size: number;
  readonly etag: string;
}

function listPartsXml(uploadId: string, parts: Map<number, StoredPart>): string {
  const entries = [...parts.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([number, part]) =>
        `<Part><PartNumber>${number}</PartNumber><ETag>${part.etag}</ETag><Size>${part.size}</Size></Part>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${entries}</ListPartsResult>`;
}

/** A CompleteMultipartUploadResult as Ceph RGW 16.2 answers it: `<ETag></ETag>`. */
export function rgwEmptyEtag(document: string): string {
  return document.replace(/<ETag>[^<]*<\/ETag>/, '<ETag></ETag>');
}

async function sendRewritten(
  answer: http.IncomingMessage,
  response: http.ServerResponse,
  rewrite: (document: string) => string[],
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer as AsyncIterable<Buffer>) chunks.push(chunk);
  const headers = { ...answer.headers };
  delete headers['content-length'];
  response.writeHead(200, headers);
  for (const chunk of rewrite(Buffer.concat(chunks).toString('utf8'))) {
    // Handed to the connection, then a turn of the event loop (its poll phase reads sockets): the
    // gateway, in this process, gets each chunk before the next is written.
    await new Promise<void>((resolve, reject) =>
      response.write(chunk, (error) => (error ? reject(error) : resolve())),
    );
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

export async function startRecordingBackend(): Promise<RecordingBackend> {
  const directory = mkdtempSync(path.join(tmpdir(), 'gw-recording-'));
  const s3rver = await startEmbeddedS3(directory);
  const target = new URL(s3rver.url);
  const requests: RecordedRequest[] = [];
  /** uploadId → part number → the part, from successful UploadPart requests. */
  const uploads = new Map<string, Map<number, StoredPart>>();

  const server = http.createServer((request, response) => {
    const verification = verifyTarget(
      {
        method: request.method ?? 'GET',
        rawTarget: request.url ?? '/',
        headers: request.headersDistinct,
        now: new Date(),
      },
      async (id) => (id === s3rver.accessKeyId ? { secrets: [s3rver.secretAccessKey] } : null),
      { allowedRegions: ['us-east-1'] },
    );
    const record: RecordedRequest = {
      method: request.method ?? '',
      target: request.url ?? '',
      headers: request.headers,
      bodyBytes: 0,
      bodyComplete: false,
      abandoned: false,
      signatureValid: false,
      status: null,
    };
    requests.push(record);
    const url = new URL(request.url ?? '/', 'http://backend');
    const uploadId = url.searchParams.get('uploadId');
    const partNumber = Number(url.searchParams.get('partNumber'));

    if (request.method === 'GET' && uploadId !== null) {
      void verification.then((result) => {
        record.signatureValid = result.ok;
        const parts = uploads.get(uploadId);
        // An upload the store never created (or already completed or aborted): S3's 404, which
        // names the bucket when that is what is missing (s3rver keeps a bucket as a directory).
        const bucket = decodeURIComponent(url.pathname.split('/')[1] ?? '');
        const missing =
          parts !== undefined
            ? null
            : bucket !== '' && existsSync(path.join(directory, bucket))
              ? 'NoSuchUpload'
              : 'NoSuchBucket';
        record.status = missing === null ? 200 : 404;
        response.writeHead(record.status, { 'content-type': 'application/xml' });
        response.end(
          missing === null
            ? listPartsXml(uploadId, parts as Map<number, StoredPart>)
            : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${missing}</Code><Message>The specified ${missing === 'NoSuchUpload' ? 'upload' : 'bucket'} does not exist.</Message></Error>`,
        );
      });
      request.resume();
      return;
    }

    const failed = request.method === 'HEAD' ? (backend.failHead?.(request.url ?? '') ?? null) : null;
    if (failed !== null) {
      record.status = failed;
      response.writeHead(failed);
      response.end();
      request.resume();
      return;
    }

    // Like S3, commit only a complete body: buffer it, and forward nothing if the sender gave up.
    request.once('close', () => {
      if (!request.complete) record.abandoned = true;
    });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      record.bodyBytes += chunk.length;
      chunks.push(chunk);
    });
    request.on('end', () => {
      record.bodyComplete = true;
      const body = Buffer.concat(chunks);
      const upstream = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, 'content-length': String(body.length) },
        },
        (answer) => {
          record.status = answer.statusCode ?? null;
          if (request.method === 'PUT' && uploadId !== null && answer.statusCode === 200) {
            const parts = uploads.get(uploadId) ?? new Map<number, StoredPart>();
            parts.set(partNumber, { size: body.length, etag: String(answer.headers.etag ?? '') });
            uploads.set(uploadId, parts);
          }
          if (request.method === 'POST' && url.searchParams.has('uploads') && answer.statusCode === 200) {
            // Remember the uploads the store created, so that ListParts knows them.
            let created = '';
            answer.on('data', (chunk: Buffer) => (created += chunk.toString('utf8')));
            answer.once('end', () => {
              const id = /<UploadId>([^<]+)<\/UploadId>/.exec(created)?.[1];
              if (id !== undefined && !uploads.has(id)) uploads.set(id, new Map());
            });
          }
          const rewrite = backend.rewriteCompletion;
          if (
            request.method === 'POST' &&
            uploadId !== null &&
            answer.statusCode === 200 &&
            rewrite !== null
          ) {
            sendRewritten(answer, response, rewrite).catch(() => response.destroy());
            return;
          }
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
    void verification.then((result) => {
      record.signatureValid = result.ok;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const backend: RecordingBackend = {
    url,
    accessKeyId: s3rver.accessKeyId,
    secretAccessKey: s3rver.secretAccessKey,
    requests,
    rewriteCompletion: null,
    failHead: null,
    env: {
      GATEWAY_BACKEND_URL: url,
      GATEWAY_BACKEND_ACCESS_KEY_ID: s3rver.accessKeyId,
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: s3rver.secretAccessKey,
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await s3rver.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return backend;
}
