/**
 * docs/s3-compatibility.md, rendered from the storage endpoint's operation catalogue
 * (src/s3/operation-catalogue.ts): the page users read and the table the code routes by are one.
 */
import { namingParameter, OPERATION_CATALOGUE, type CatalogueEntry } from '../src/s3/operation-catalogue.js';

const HEADER = `# S3 compatibility

<!-- Generated from src/s3/operation-catalogue.ts by \`npm run generate:docs\`; do not edit by hand. -->

Every operation of the Amazon S3 API and what the gateway's storage endpoint does with it:

- **forwarded**: verified, authorised against the credential's scope, re-signed and sent to the
  object store; its answer (errors included, always with a message) reaches the client. The scope
  column names the method a credential's scope must allow (a read-only key allows GET and HEAD).
- **answered**: the gateway answers from its own records.
- **405**: a bucket-level write, refused with \`MethodNotAllowed\`: buckets and their configuration
  are managed through the control plane (\`/v1\`).
- **501**: not offered, refused with \`NotImplemented\` and the reason in its message.

Anonymous requests may only read objects (GetObject, HeadObject) of a bucket made public through the
control plane, and only as they are now: one naming a \`versionId\` is \`AccessDenied\` "Access Denied"
(S3 grants versions apart, as \`s3:GetObjectVersion\`, and a public bucket's older versions, those
behind a delete marker included, may be what its owner replaced or deleted on purpose), and one
overriding the answer's headers with \`response-*\` parameters is \`InvalidRequest\` ("Request specific
response headers cannot be used for anonymous GET requests.", as S3 answers it); anything
else, an anonymous ListBuckets included, is \`AccessDenied\` (there is no organisation to list the
buckets of; Ceph RGW would answer an empty list). Whatever the operation, a suspended organisation
gets \`AccountProblem\`, and the protocol rules of the service specification apply (conditional GETs,
per-chunk signed streaming and storage classes other than STANDARD are refused).

Versioned buckets: versioning is turned on at the object store (PutBucketVersioning is a bucket-level
write); version reads, listings, version deletes and copies from a version are forwarded under the
scope's read (or delete, or write) permission. With Ceph RGW 16.2 a version that does not exist is
\`NoSuchKey\` (S3: \`NoSuchVersion\`; GetObjectAttributes, answered here, says \`NoSuchVersion\`), and a
copy's answer names neither its version nor its source's.

Listings (ListObjects, ListObjectsV2 with \`fetch-owner\`, ListObjectVersions, ListMultipartUploads,
ListParts) stream from the store as it answers them: their \`Owner\` and \`Initiator\` are the store
user the gateway signs as, the same for every organisation (its user id and display name, not a
credential), where the ACL answers name the organisation. They are not rewritten, as that would mean
parsing every listing page in the gateway; give the backend user a neutral id and display name.

Browser form uploads (PostObject): the policy's signature, expiry and conditions are verified, then
the upload is authorised, banned and limited as the PutObject it amounts to. A policy lives at most
7 days, like a presigned URL: one whose \`expiration\` is more than 604800 seconds after the form's
\`x-amz-date\` is \`AccessDenied\` ("Invalid according to Policy: the policy expiration must be at
most 604800 seconds (7 days) after its x-amz-date."), and a form dated more than fifteen minutes
ahead is \`RequestTimeTooSkewed\` (S3 bounds a policy only by its \`expiration\`). The bucket's CORS
rules decide which pages may read a form's answer, errors included; as on S3 they do not authorise
the upload itself, which its signed policy does.

Browsers and conditional GETs: a browser that fetches a presigned URL it has cached revalidates it
with \`If-None-Match\` or \`If-Modified-Since\` (Chromium also does when the cached copy was read by a
page of another origin, as the answer varies by \`Origin\`). That is a conditional GET, refused with
\`InvalidRequest\` 400 as the service specification requires; a page that reads an object again
should ask for a fresh presigned URL (two URLs presigned for the same key in the same second are
the same URL), or fetch with \`cache: 'no-store'\`.

Refused before anything is forwarded, whatever the operation: a query that gives a parameter twice
(400 \`InvalidArgument\` naming it: the gateway and the store must read the same \`prefix\`,
\`uploadId\` or \`partNumber\`, and Ceph RGW keeps the last of two where the gateway reads the
first); a \`versionId\` on a write that makes an object or a part (PutObject, CopyObject, the
multipart writes: 400 \`InvalidArgument\` "This operation does not accept a version-id.", as S3
answers); a part write (UploadPart, UploadPartCopy) without a \`partNumber\`, or any request whose
\`partNumber\` is not a whole number from 1 to 10000 (400 \`InvalidArgument\` "Part number must be
an integer between 1 and 10000, inclusive", as S3 answers); a DeleteObjects naming more than 1,000 keys, or whose body is over 2 MiB (400
\`MalformedXML\`, as S3 answers more than 1,000 keys).

Tenant limits apply to every operation (README, "Quotas and rate limits"): a request over its
organisation's or its credential's request rate gets \`SlowDown\` (503) with \`Retry-After\`, and an
upload, copy or multipart completion that would exceed a storage quota gets \`QuotaExceeded\` (403)
before anything is stored.
`;

function request(entry: CatalogueEntry): string {
  const target = entry.level === 'service' ? '/' : entry.level === 'bucket' ? '/{bucket}' : '/{bucket}/{key}';
  const query = [entry.subresource, entry.selector].filter((part) => part !== null && part !== undefined);
  const copy = entry.copy === true ? ' + `x-amz-copy-source`' : '';
  const id = entry.withId === true ? `&${namingParameter(entry)}=` : '';
  return `\`${entry.method} ${target}${query.length === 0 ? '' : `?${query.join('&')}`}${id}\`${copy}`;
}

function treatment(entry: CatalogueEntry): [string, string] {
  switch (entry.treatment.kind) {
    case 'forwarded':
      return ['forwarded', entry.scopeMethod ?? entry.method];
    case 'answered':
      return ['answered', entry.treatment.how];
    case 'bucket-write':
      return ['405', 'bucket configuration belongs to the control plane'];
    case 'not-offered':
      return [
        '501',
        entry.treatment.reason + (entry.unroutable === undefined ? '' : ` (${entry.unroutable})`),
      ];
  }
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export function renderCompatibilityPage(catalogue: readonly CatalogueEntry[] = OPERATION_CATALOGUE): string {
  const rows = [...catalogue]
    .sort((left, right) => left.name.localeCompare(right.name))
    .map((entry) => {
      const [what, detail] = treatment(entry);
      const name =
        entry.aliases === undefined ? entry.name : `${entry.name} (also ${entry.aliases.join(', ')})`;
      return `| ${name} | ${request(entry)} | ${what} | ${escapeCell(detail)} |`;
    });
  const counts = new Map<string, number>();
  for (const entry of catalogue)
    counts.set(entry.treatment.kind, (counts.get(entry.treatment.kind) ?? 0) + 1);
  const summary =
    `${catalogue.length} operations: ${counts.get('forwarded') ?? 0} forwarded, ${counts.get('answered') ?? 0} ` +
    `answered by the gateway, ${counts.get('bucket-write') ?? 0} refused as bucket-level writes (405), ` +
    `${counts.get('not-offered') ?? 0} not offered (501).`;
  return `${HEADER}\n${summary}\n\n| Operation | Request | Treatment | Scope method, or how / why |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`;
}
