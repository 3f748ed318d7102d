import { describe, expect, it } from 'vitest';
import {
  findUndersizedPart,
  MIN_PART_BYTES,
  parseCompletedParts,
  parseListPartsPage,
  uploadedPartSizes,
} from '../../../src/s3/multipart.js';

function code(call: () => unknown): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

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
        code(() => parseCompletedParts(body)),
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
});

const listing = (parts: [number, number][], next: string | null) =>
  `<ListPartsResult><IsTruncated>${next !== null}</IsTruncated>${next === null ? '' : `<NextPartNumberMarker>${next}</NextPartNumberMarker>`}${parts
    .map(
      ([number, size]) =>
        `<Part><PartNumber>${number}</PartNumber><Size>${size}</Size><ETag>"e"</ETag></Part>`,
    )
    .join('')}</ListPartsResult>`;

describe('uploaded part sizes', () => {
  it('follows ListParts pages', async () => {
    const markers: (string | null)[] = [];
    const sizes = await uploadedPartSizes(async (marker) => {
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
    expect([...(sizes ?? new Map())]).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
  });

  it('is null when the backend does not answer ListParts', async () => {
    expect(await uploadedPartSizes(async () => ({ status: 405, body: '<Error/>' }))).toBeNull();
    expect(await uploadedPartSizes(async () => ({ status: 200, body: '<NotAListing/>' }))).toBeNull();
  });

  it('parses a single page, including an empty one', () => {
    expect(parseListPartsPage(listing([], null))).toEqual({ sizes: new Map(), nextMarker: null });
    expect(
      parseListPartsPage(
        '<ListPartsResult><Part><PartNumber>1</PartNumber><Size>x</Size></Part></ListPartsResult>',
      ),
    ).toBeNull();
  });
});

describe('findUndersizedPart', () => {
  const sizes = new Map([
    [1, MIN_PART_BYTES],
    [2, MIN_PART_BYTES - 1],
    [3, 1],
  ]);

  it('finds a non-final part under 5 MiB', () => {
    expect(
      findUndersizedPart(
        [
          { partNumber: 2, etag: 'b' },
          { partNumber: 3, etag: 'c' },
        ],
        sizes,
      ),
    ).toEqual({
      partNumber: 2,
      etag: 'b',
    });
  });

  it('lets the final part be any size, and leaves unknown parts to the backend', () => {
    expect(
      findUndersizedPart(
        [
          { partNumber: 1, etag: 'a' },
          { partNumber: 3, etag: 'c' },
        ],
        sizes,
      ),
    ).toBeNull();
    expect(findUndersizedPart([{ partNumber: 2, etag: 'b' }], sizes)).toBeNull();
    expect(
      findUndersizedPart(
        [
          { partNumber: 9, etag: 'x' },
          { partNumber: 3, etag: 'c' },
        ],
        sizes,
      ),
    ).toBeNull();
  });
});
