'use strict';
/**
 * The embedded object store's process (see embedded-s3.ts): s3rver on an ephemeral loopback port.
 *
 * s3rver writes an upload straight into the object's file, so a body cut off half-way (which is how
 * the gateway refuses a body that failed its checksum) would replace the object with a fragment.
 * Real object stores commit a body only once it has arrived whole; objects and parts are therefore
 * written to a temporary file here and renamed into place only when the request completed.
 *
 * s3rver has no ListParts, which the gateway reads before it completes a multipart upload (the
 * 5 MiB rule, the size a storage quota admits), no ListMultipartUploads and no
 * AbortMultipartUpload, which a storage quota's count of parts under way relies on; they are
 * answered here from the uploads on disk.
 *
 * argv: <s3rver entry module> <data directory>
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const [s3rverEntry, directory] = process.argv.slice(2);
const S3rver = require(s3rverEntry);
const FilesystemStore = require(path.join(path.dirname(s3rverEntry), 'stores', 'filesystem.js'));
const S3rverError = require(path.join(path.dirname(s3rverEntry), 'models', 'error.js'));

/** S3's smallest non-final part; s3rver assembles parts of any size and never checks their ETags. */
const MIN_PART_BYTES = 5 * 1024 * 1024;

/** Streams a request body to `finalPath` atomically; resolves to its size and MD5 (hex). */
function writeWhole(content, finalPath) {
  const temporary = `${finalPath}.partial-${crypto.randomBytes(6).toString('hex')}`;
  const md5 = crypto.createHash('md5');
  let size = 0;
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(temporary);
    let failed = false;
    const fail = (error) => {
      if (failed) return;
      failed = true;
      out.destroy();
      fs.rm(temporary, { force: true }, () => reject(error));
    };
    content.on('data', (chunk) => {
      md5.update(chunk);
      size += chunk.length;
    });
    content.on('aborted', () => fail(new Error('upload aborted before its end')));
    content.on('error', fail);
    content.on('close', () => {
      if (content.complete === false) fail(new Error('upload closed before its end'));
    });
    out.on('error', fail);
    out.on('finish', () => {
      if (failed) return;
      if (content.complete === false) return fail(new Error('upload closed before its end'));
      fs.rename(temporary, finalPath, (error) =>
        error ? fail(error) : resolve({ size, md5: md5.digest('hex') }),
      );
    });
    content.pipe(out);
  });
}

const originalPutObject = FilesystemStore.prototype.putObject;
FilesystemStore.prototype.putObject = async function putObject(object) {
  // Buffers (multipart completion, copies) are whole already.
  if (Buffer.isBuffer(object.content)) return originalPutObject.call(this, object);
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await fs.promises.mkdir(path.dirname(objectPath), { recursive: true });
  const { size, md5 } = await writeWhole(object.content, objectPath);
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size, md5 };
};

const originalGetObject = FilesystemStore.prototype.getObject;
FilesystemStore.prototype.getObject = async function getObject(bucket, key, options) {
  const object = await originalGetObject.call(this, bucket, key, options);
  // A range of an empty object is unsatisfiable (416 InvalidRange, as S3 and Ceph RGW answer):
  // s3rver took bytes 0-0 of it as one byte and announced a length its empty body never had.
  if (object !== null && object.range !== undefined && Number(object.metadata['content-length']) === 0) {
    if (object.content) object.content.destroy();
    object.content = null;
  }
  return object;
};

FilesystemStore.prototype.putPart = async function putPart(bucket, uploadId, partNumber, content) {
  const uploadDir = path.join(this.getResourcePath(bucket, undefined, 'uploads'), path.basename(uploadId));
  // A part of an upload nobody started is NoSuchUpload, as S3 and Ceph RGW answer it (s3rver would
  // start one on the spot).
  if (!fs.existsSync(path.join(uploadDir, 'key'))) {
    throw new S3rverError('NoSuchUpload', 'The specified upload does not exist.', { UploadId: uploadId });
  }
  const partPath = path.join(uploadDir, partNumber.toString());
  const { size, md5 } = await writeWhole(content, partPath);
  await fs.promises.writeFile(`${partPath}.md5`, md5);
  return { size, md5 };
};

/**
 * Completion checked as S3 and Ceph RGW check it, so local mode refuses what production refuses:
 * every named part uploaded with the ETag given, in ascending order, and every part but the last
 * at least 5 MiB (EntityTooSmall).
 */
const originalPutObjectMultipart = FilesystemStore.prototype.putObjectMultipart;
FilesystemStore.prototype.putObjectMultipart = async function putObjectMultipart(bucket, uploadId, parts) {
  const uploadDir = path.join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId);
  if (!fs.existsSync(uploadDir)) {
    throw new S3rverError('NoSuchUpload', 'The specified upload does not exist.', { UploadId: uploadId });
  }
  for (let index = 0; index < parts.length; index += 1) {
    const { number, etag } = parts[index];
    if (index > 0 && number <= parts[index - 1].number) {
      throw new S3rverError('InvalidPartOrder', 'The list of parts was not in ascending order.');
    }
    const partPath = path.join(uploadDir, String(number));
    const [stat, md5] = await Promise.all([
      fs.promises.stat(partPath).catch(() => null),
      fs.promises.readFile(`${partPath}.md5`, 'utf8').catch(() => null),
    ]);
    if (stat === null || md5 === null || md5.trim() !== etag) {
      throw new S3rverError(
        'InvalidPart',
        "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
        { PartNumber: number, ETag: etag },
      );
    }
    if (index < parts.length - 1 && stat.size < MIN_PART_BYTES) {
      throw new S3rverError(
        'EntityTooSmall',
        'Your proposed upload is smaller than the minimum allowed object size.',
        {
          PartNumber: number,
          ProposedSize: stat.size,
          MinSizeAllowed: MIN_PART_BYTES,
        },
      );
    }
  }
  return originalPutObjectMultipart.call(this, bucket, uploadId, parts);
};

/** XML text content. */
function escapeXml(text) {
  return String(text).replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * ListParts (GET /bucket/key?uploadId=…, with max-parts and part-number-marker) from the parts
 * written by putPart above. It runs ahead of s3rver's own routes and signature check: the store
 * listens on loopback with its fixed, well-known key pair, so the check protects nothing here.
 */
function listParts(store) {
  return async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (ctx.method !== 'GET' || typeof uploadId !== 'string' || match === null) return next();
    const [, bucket, key] = match;
    const uploadDir = path.join(store.getResourcePath(bucket, undefined, 'uploads'), path.basename(uploadId));
    const names = await fs.promises.readdir(uploadDir).catch(() => null);
    ctx.type = 'application/xml';
    if (names === null) {
      ctx.status = 404;
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code>' +
        `<Message>The specified upload does not exist.</Message><UploadId>${escapeXml(uploadId)}</UploadId></Error>`;
      return;
    }
    const marker = Number(ctx.query['part-number-marker'] ?? 0) || 0;
    const maxParts = Math.min(Number(ctx.query['max-parts'] ?? 1000) || 1000, 1000);
    const numbers = names
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((number) => number > marker)
      .sort((a, b) => a - b);
    const page = numbers.slice(0, maxParts);
    let parts = '';
    for (const number of page) {
      const partPath = path.join(uploadDir, String(number));
      const [stat, md5] = await Promise.all([
        fs.promises.stat(partPath),
        fs.promises.readFile(`${partPath}.md5`, 'utf8'),
      ]);
      parts +=
        `<Part><PartNumber>${number}</PartNumber><ETag>"${escapeXml(md5.trim())}"</ETag>` +
        `<Size>${stat.size}</Size></Part>`;
    }
    const truncated = numbers.length > page.length;
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?><ListPartsResult>' +
      `<Bucket>${escapeXml(decodeURIComponent(bucket))}</Bucket><Key>${escapeXml(decodeURIComponent(key))}</Key>` +
      `<UploadId>${escapeXml(uploadId)}</UploadId><PartNumberMarker>${marker}</PartNumberMarker>` +
      `<NextPartNumberMarker>${page.at(-1) ?? marker}</NextPartNumberMarker><MaxParts>${maxParts}</MaxParts>` +
      `<IsTruncated>${truncated}</IsTruncated>${parts}</ListPartsResult>`;
  };
}

/** The uploads under way in a bucket, as ListMultipartUploads lists them (one page, in key order). */
function listUploads(store) {
  return async (ctx, next) => {
    const match = /^\/([^/]+)\/?$/.exec(ctx.path);
    if (ctx.method !== 'GET' || ctx.query.uploads === undefined || match === null) return next();
    const bucket = decodeURIComponent(match[1]);
    const uploadsDir = store.getResourcePath(bucket, undefined, 'uploads');
    const ids = await fs.promises.readdir(uploadsDir).catch(() => []);
    const uploads = [];
    for (const id of ids) {
      const key = await fs.promises.readFile(path.join(uploadsDir, id, 'key'), 'utf8').catch(() => null);
      if (key !== null && key.startsWith(ctx.query.prefix ?? '')) uploads.push({ id, key });
    }
    uploads.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : 1));
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult>' +
      `<Bucket>${escapeXml(bucket)}</Bucket><IsTruncated>false</IsTruncated>` +
      uploads
        .map(
          (upload) =>
            `<Upload><Key>${escapeXml(upload.key)}</Key><UploadId>${escapeXml(upload.id)}</UploadId></Upload>`,
        )
        .join('') +
      '</ListMultipartUploadsResult>';
  };
}

/** AbortMultipartUpload (DELETE /bucket/key?uploadId=…): its parts go; 404 NoSuchUpload if it is unknown. */
function abortUpload(store) {
  return async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (ctx.method !== 'DELETE' || typeof uploadId !== 'string' || match === null) return next();
    const uploadDir = path.join(
      store.getResourcePath(decodeURIComponent(match[1]), undefined, 'uploads'),
      path.basename(uploadId),
    );
    const found = await fs.promises.stat(uploadDir).then(
      () => true,
      () => false,
    );
    ctx.type = 'application/xml';
    if (!found) {
      ctx.status = 404;
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchUpload</Code>' +
        `<Message>The specified upload does not exist.</Message><UploadId>${escapeXml(uploadId)}</UploadId></Error>`;
      return;
    }
    await fs.promises.rm(uploadDir, { recursive: true, force: true });
    ctx.status = 204;
  };
}

/** The longest file name the filesystem holds (NAME_MAX on Linux). */
const MAX_FILE_NAME_BYTES = 255;

/**
 * s3rver keeps an object as files named after its key's segments (plus a suffix), so a segment
 * longer than a file name may be cannot be stored here, though S3 and Ceph RGW take keys up to 1024
 * bytes: such a write is refused with a message that says why (s3rver itself would fail with 500),
 * and such an object is simply not here.
 */
function unstorableKeys(store) {
  return async (ctx, next) => {
    const match = /^\/([^/]+)\/(.+)$/.exec(ctx.path);
    if (match === null) return next();
    let bucket;
    let key;
    try {
      bucket = decodeURIComponent(match[1]);
      key = decodeURIComponent(match[2]);
    } catch {
      return next();
    }
    const objectPath = store.getResourcePath(bucket, key, 'metadata.json');
    const tooLong = path
      .relative(store.rootDirectory, objectPath)
      .split(path.sep)
      .some((name) => Buffer.byteLength(name) > MAX_FILE_NAME_BYTES);
    if (!tooLong) return next();
    ctx.type = 'application/xml';
    const write = ctx.method === 'PUT' || ctx.method === 'POST';
    if (ctx.method === 'DELETE' && ctx.query.uploadId === undefined) {
      ctx.status = 204;
      return;
    }
    ctx.status = write ? 400 : 404;
    ctx.body = write
      ? '<?xml version="1.0" encoding="UTF-8"?><Error><Code>KeyTooLongError</Code>' +
        '<Message>The embedded store of local mode keeps each object in files named after the segments of its key: ' +
        `a segment (between slashes) this long cannot be stored here. Ceph RGW and S3 take keys up to 1024 bytes.</Message></Error>`
      : '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code>' +
        '<Message>The specified key does not exist.</Message></Error>';
  };
}

const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
server.middleware.unshift(
  unstorableKeys(server.store),
  listParts(server.store),
  listUploads(server.store),
  abortUpload(server.store),
);
server.run().then(
  (address) => process.send({ port: address.port }),
  (error) => {
    process.stderr.write(String((error && error.stack) || error));
    process.exit(1);
  },
);
// The gateway went away (the IPC channel closed) or asked us to stop: no orphan keeps the port.
const stop = () => server.close().finally(() => process.exit(0));
process.on('disconnect', stop);
process.on('SIGTERM', stop);
