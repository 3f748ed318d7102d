/**
 * The periodic check of the multipart uploads a storage quota counts (store/storage-uploads.ts):
 * an upload nobody completes or aborts keeps its parts in the store, and in the count, until the
 * store itself lets it go (a lifecycle rule's AbortIncompleteMultipartUpload, an operator's clean-
 * up). Each process, at its heartbeat, claims a few uploads the store has not confirmed for a
 * while (no two processes claim the same) and asks the store with ListParts: one it no longer
 * knows stops counting.
 */
import { objectPath } from '../../protocol/paths.js';
import { queryParameter } from '../../protocol/query.js';
import type { Logger } from '../../observability/logger.js';
import type { StorageUploadsStore } from '../../store/storage-uploads.js';
import type { Upstream } from '../upstream/upstream.js';

/** An upload is asked about again once the store confirmed it this long ago. */
export const UPLOAD_CHECK_AFTER_SECONDS = 3_600;
/** Uploads asked about per heartbeat and process. */
const UPLOADS_PER_CHECK = 20;

export class UploadChecks {
  readonly #uploads: StorageUploadsStore;
  readonly #upstream: Upstream;
  readonly #logger: Logger;
  readonly #afterSeconds: number;

  constructor(
    uploads: StorageUploadsStore,
    upstream: Upstream,
    logger: Logger,
    afterSeconds: number = UPLOAD_CHECK_AFTER_SECONDS,
  ) {
    this.#uploads = uploads;
    this.#upstream = upstream;
    this.#logger = logger;
    this.#afterSeconds = afterSeconds;
  }

  /** Asks the store about the uploads due; how many it no longer knew (they stopped counting). */
  async checkDue(): Promise<number> {
    const due = await this.#uploads.claimUnchecked(this.#afterSeconds, UPLOADS_PER_CHECK);
    let gone = 0;
    for (const upload of due) {
      const spec = {
        method: 'GET',
        path: objectPath(upload.bucket, upload.key),
        query: [queryParameter('uploadId', upload.uploadId), queryParameter('max-parts', '1')],
        headers: {},
      };
      try {
        const answer = await this.#upstream.connection.call(spec, { maxBytes: 64 * 1024 });
        // Only NoSuchUpload says it is gone; any other answer keeps it counted until the next check.
        if (answer.status !== 404 || !answer.body.toString('utf8').includes('NoSuchUpload')) continue;
        await this.#uploads.forget(upload);
        gone += 1;
      } catch (error) {
        this.#logger.warn(
          { err: error, bucket: upload.bucket },
          'could not check a multipart upload under way',
        );
      }
    }
    return gone;
  }
}
