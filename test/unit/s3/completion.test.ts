import { describe, expect, it } from 'vitest';
import { thrownCode } from '../../support/thrown-code.js';
import { MIN_PART_BYTES } from '../../../src/protocol/limits.js';
import {
  fillEtag,
  findUndersizedPart,
  lacksEtag,
  parseCompletedParts,
  parseListPartsPage,
  storedParts,
} from '../../../src/s3/upstream/completion.js';

const completion = (parts: string) =>
  Buffer.from(
    `<?xml version="1.0"?><CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts}</CompleteMultipartUpload>`,
  );

describe('parseCompletedParts', () => {
  it('reads the parts in the order given, one or many', () => {
    expect(
      parseCompletedParts(completion('<Part><PartNumber>1</PartNumber><ETag>"a"</ETag></Part>')),
    ).toEqual([{ partNumber: 1, etag: '"a"' }]);
    expect(
      parseCompletedParts(
        completion(
          '<Part><ETag>"a"</ETag><PartNumber>1</PartNumber></Part><Part><PartNumber>3</PartNumber><ETag>"c"</ETag><ChecksumCRC32>x</ChecksumCRC32></Part>',
        ),
      ).map((part) => part.partNumber),
    ).toEqual([1, 3]);
  });

  it('refuses what is not a completion with MalformedXML', () => {
    for (const body of [
      Buffer.from(''),
      Buffer.from('<CompleteMultipartUpload><Part>'),
      completion(''),
      completion('<Part><PartNumber>1</PartNumber></Part>'),
      completion('<Part><PartNumber>0</PartNumber><ETag>a</ETag></Part>'),
      completion('<Part><PartNumber>10001</PartNumber><ETag>a</ETag></Part>'),
      completion('<Part><PartNumber>one</PartNumber><ETag>a</ETag></Part>'),
      Buffer.from('<Other><Part><PartNumber>1</PartNumber><ETag>a</ETag></Part></Other>'),
    ]) {
      expect(
        thrownCode(() => parseCompletedParts(body)),
        body.toString(),
      ).toBe('MalformedXML');
    }
  });

  it('does not expand entities', () => {
    const bomb = Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
        '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&b;</ETag></Part></CompleteMultipartUpload>',
    );
    expect(parseCompletedParts(bomb)[0]?.etag).toBe('&b;');
  });

  it('refuses a document declaring an external entity as MalformedXML', () => {
    const external = Buffer.from(
      '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b SYSTEM "file:///etc/passwd">]>' +
        '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&b;</ETag></Part></CompleteMultipartUpload>',
    );
    expect(thrownCode(() => parseCompletedParts(external))).toBe('MalformedXML');
  });
});

const listing = (parts: [number, number, string?][], next: string | null) =>
  `<ListPartsResult><IsTruncated>${next !== null}</IsTruncated>${next === null ? '' : `<NextPartNumberMarker>${next}</NextPartNumberMarker>`}${parts
    .map(
      ([number, size, etag = 'e']) =>
        `<Part><PartNumber>${number}</PartNumber><Size>${size}</Size><ETag>"${etag}"</ETag></Part>`,
    )
    .join('')}</ListPartsResult>`;

describe('the parts the store holds', () => {
  it('follows ListParts pages', async () => {
    const markers: (string | null)[] = [];
    const parts = await storedParts(async (marker) => {
      markers.push(marker);
      return marker === null
        ? {
            status: 200,
            body: listing(
              [
                [1, 10],
                [2, 20],
              ],
              '2',
            ),
          }
        : { status: 200, body: listing([[3, 30]], null) };
    });
    expect(markers).toEqual([null, '2']);
    expect([...(parts ?? new Map())]).toEqual([
      [1, [{ etag: 'e', size: 10 }]],
      [2, [{ etag: 'e', size: 20 }]],
      [3, [{ etag: 'e', size: 30 }]],
    ]);
  });

  it('is null when the backend does not answer ListParts, and names what a 404 says is missing', async () => {
    expect(await storedParts(async () => ({ status: 405, body: '<Error/>' }))).toBeNull();
    expect(
      await storedParts(async () => ({ status: 404, body: '<Error><Code>NoSuchUpload</Code></Error>' })),
    ).toBe('no-such-upload');
    expect(
      await storedParts(async () => ({ status: 404, body: '<Error><Code>NoSuchBucket</Code></Error>' })),
    ).toBe('no-such-bucket');
    expect(await storedParts(async () => ({ status: 404, body: '' }))).toBe('no-such-upload');
    expect(await storedParts(async () => ({ status: 200, body: '<NotAListing/>' }))).toBeNull();
  });

  it('parses a single page, including an empty one', () => {
    expect(parseListPartsPage(listing([], null))).toEqual({ parts: new Map(), nextMarker: null });
    expect(
      parseListPartsPage(
        '<ListPartsResult><Part><PartNumber>1</PartNumber><Size>x</Size></Part></ListPartsResult>',
      ),
    ).toBeNull();
  });
});

describe('findUndersizedPart', () => {
  const stored = new Map([
    [1, [{ etag: 'a', size: MIN_PART_BYTES }]],
    [2, [{ etag: 'b', size: MIN_PART_BYTES - 1 }]],
    [3, [{ etag: 'c', size: 1 }]],
  ]);

  it('finds a non-final part under 5 MiB', () => {
    expect(
      findUndersizedPart(
        [
          { partNumber: 2, etag: '"b"' },
          { partNumber: 3, etag: '"c"' },
        ],
        stored,
      ),
    ).toEqual({ partNumber: 2, etag: '"b"' });
  });

  it('lets the final part be any size, and leaves unknown parts to the backend', () => {
    expect(
      findUndersizedPart(
        [
          { partNumber: 1, etag: 'a' },
          { partNumber: 3, etag: 'c' },
        ],
        stored,
      ),
    ).toBeNull();
    expect(findUndersizedPart([{ partNumber: 2, etag: 'b' }], stored)).toBeNull();
    expect(
      findUndersizedPart(
        [
          { partNumber: 9, etag: 'x' },
          { partNumber: 3, etag: 'c' },
        ],
        stored,
      ),
    ).toBeNull();
  });

  it('judges a part sent twice by the upload the completion names, as the store keeps it', () => {
    // Part 1 went twice: a small first attempt that finished last, and a full one the client completes with.
    const resent = new Map([
      [
        1,
        [
          { etag: 'small', size: 10 },
          { etag: 'full', size: MIN_PART_BYTES },
        ],
      ],
      [2, [{ etag: 'last', size: 1 }]],
    ]);
    const completed = (etag: string) => [
      { partNumber: 1, etag: `"${etag}"` },
      { partNumber: 2, etag: '"last"' },
    ];
    expect(findUndersizedPart(completed('full'), resent)).toBeNull();
    expect(findUndersizedPart(completed('small'), resent)).toEqual({ partNumber: 1, etag: '"small"' });
  });
});

const result = (etag: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Location>http://rgw/b/k</Location><Bucket>b</Bucket><Key>k</Key>${etag}</CompleteMultipartUploadResult>`;
const REAL = '"0f343b0931126a20f133d67c2b018a3b-2"';
const FILLED = result('<ETag>&quot;0f343b0931126a20f133d67c2b018a3b-2&quot;</ETag>');

describe('fillEtag (Ceph RGW 16.2 completes with an empty ETag)', () => {
  it('fills <ETag></ETag>, <ETag/> and a whitespace-only ETag, XML-escaped', () => {
    for (const empty of ['<ETag></ETag>', '<ETag/>', '<ETag />', '<ETag> \n</ETag>']) {
      expect(lacksEtag(result(empty))).toBe(true);
      expect(fillEtag(result(empty), REAL)).toBe(FILLED);
    }
  });

  it('escapes every XML special character, and `$` stays literal', () => {
    expect(fillEtag(result('<ETag></ETag>'), `"a&b<c>'$&$1"`)).toBe(
      result('<ETag>&quot;a&amp;b&lt;c&gt;&apos;$&amp;$1&quot;</ETag>'),
    );
  });

  it('fills a document the store sent whitespace ahead of, keeping the whitespace', () => {
    expect(fillEtag(`\n \n${result('<ETag></ETag>')}`, REAL)).toBe(`\n \n${FILLED}`);
  });

  it('leaves an ETag that is there alone, escaped or not', () => {
    for (const present of ['<ETag>&quot;abc-2&quot;</ETag>', '<ETag>"abc-2"</ETag>']) {
      expect(lacksEtag(result(present))).toBe(false);
      expect(fillEtag(result(present), REAL)).toBe(result(present));
    }
  });

  it('leaves an <Error> document alone (a 200 whose completion failed after the answer started)', () => {
    const error =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message><ETag></ETag><RequestId>r</RequestId></Error>';
    expect(lacksEtag(error)).toBe(false);
    expect(fillEtag(`  ${error}`, REAL)).toBe(`  ${error}`);
  });

  it('leaves anything else alone: no ETag element, not XML, empty', () => {
    for (const document of [result(''), '<CompleteMultipartUploadResult><ETag></ETag>', 'ETag', '']) {
      expect(lacksEtag(document)).toBe(false);
      expect(fillEtag(document, REAL)).toBe(document);
    }
  });
});
