/**
 * A verified form upload sent on as the PutObject it amounts to, the file streamed (never held
 * whole), and answered as S3 answers a form: a redirect to `success_action_redirect`, or the
 * status `success_action_status` asks for (200 or 201, with a PostResponse document for 201),
 * else 204.
 */
import type http from 'node:http';
import { firstHeaderValue, type HeaderMap } from '../../protocol/headers.js';
import { element, S3_XML_NAMESPACE, xmlDocument } from '../../protocol/xml.js';
import type { InBucket, Planned } from '../stages.js';
import type { FormHead } from '../steps/form-fields.js';
import { bodyFailureError } from './body.js';
import { backendRequestOf } from './forward.js';
import { FormFileStream } from './form-file.js';
import type { StoreStatusHook, Upstream } from './upstream.js';

/** Where the object is, as S3 puts it in a form's answer. */
function locationOf(publicUrl: string, bucket: string, key: string): string {
  const path = key
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return `${publicUrl.replace(/\/+$/, '')}/${encodeURIComponent(bucket)}/${path}`;
}

/** The client's answer once the store has the object. */
export function formAnswer(
  fields: ReadonlyMap<string, string>,
  object: { readonly bucket: string; readonly key: string; readonly location: string },
  storeHeaders: HeaderMap,
): { status: number; headers: http.OutgoingHttpHeaders; body: string } {
  const etag = firstHeaderValue(storeHeaders, 'etag') ?? '';
  const headers: http.OutgoingHttpHeaders = { etag, location: object.location };
  const version = firstHeaderValue(storeHeaders, 'x-amz-version-id');
  if (version !== undefined) headers['x-amz-version-id'] = version;

  const redirect = fields.get('success_action_redirect') ?? fields.get('redirect');
  if (redirect !== undefined && /^https?:\/\//i.test(redirect)) {
    const target = new URL(redirect);
    target.searchParams.set('bucket', object.bucket);
    target.searchParams.set('key', object.key);
    target.searchParams.set('etag', etag);
    return { status: 303, headers: { ...headers, location: target.toString() }, body: '' };
  }
  const status = fields.get('success_action_status');
  if (status === '201') {
    const body = xmlDocument(
      `<PostResponse xmlns="${S3_XML_NAMESPACE}">` +
        element('Location', object.location) +
        element('Bucket', object.bucket) +
        element('Key', object.key) +
        element('ETag', etag) +
        '</PostResponse>',
    );
    return { status: 201, headers: { ...headers, 'content-type': 'application/xml' }, body };
  }
  return { status: status === '200' ? 200 : 204, headers, body: '' };
}

/** `beforeAnswer` runs with the store's status before the browser hears it (storage quotas). */
export async function uploadForm(
  stage: InBucket<Planned>,
  head: FormHead,
  upstream: Upstream,
  publicUrl: string,
  beforeAnswer?: StoreStatusHook,
): Promise<void> {
  const { exchange } = stage;
  const bucket = stage.bucket;
  const file = new FormFileStream(exchange, head);
  let body: FormFileStream | Buffer = file;
  if (head.fileLength === 0) {
    // Nothing to hold back: the closing delimiter is checked before the empty object is sent.
    await new Promise<void>((resolve, reject) => {
      file.onFailure((error) => reject(bodyFailureError(error)));
      file.output.once('end', resolve).resume();
    });
    body = Buffer.alloc(0);
  }
  const location = locationOf(publicUrl, bucket, stage.key);
  await upstream.forward(exchange, {
    spec: backendRequestOf(stage, { 'content-length': String(head.fileLength) }, 'PUT'),
    body,
    successAnswer: (storeHeaders) =>
      formAnswer(head.fields, { bucket, key: stage.key, location }, storeHeaders),
    ...(beforeAnswer === undefined ? {} : { beforeAnswer }),
  });
}
