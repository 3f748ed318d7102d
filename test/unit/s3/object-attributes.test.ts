import { describe, expect, it } from 'vitest';
import { renderObjectAttributes, requestedAttributes } from '../../../src/s3/answers/object-attributes.js';
import { thrownCode } from '../../support/thrown-code.js';

describe('GetObjectAttributes from a HEAD', () => {
  it('reads the attributes asked for, and refuses none or an unknown one', () => {
    expect([...requestedAttributes('ETag, ObjectSize')]).toEqual(['ETag', 'ObjectSize']);
    for (const bad of [undefined, '', 'ETag,Colour']) {
      expect(thrownCode(() => requestedAttributes(bad))).toBe('InvalidArgument');
    }
  });

  it('renders what the store said of the object, and only what was asked', () => {
    const headers = {
      etag: '"0123456789abcdef0123456789abcdef-3"',
      'content-length': '17825792',
      'x-amz-checksum-crc32': 'AAAAAA==',
    };
    expect(
      renderObjectAttributes(
        new Set(['ETag', 'ObjectParts', 'ObjectSize', 'Checksum', 'StorageClass']),
        headers,
      ),
    ).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><GetObjectAttributesResponse xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        '<ETag>0123456789abcdef0123456789abcdef-3</ETag><Checksum><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Checksum>' +
        '<ObjectParts><PartsCount>3</PartsCount></ObjectParts><StorageClass>STANDARD</StorageClass>' +
        '<ObjectSize>17825792</ObjectSize></GetObjectAttributesResponse>',
    );
    // A single-part object has no part count; a store without checksums, no Checksum.
    expect(renderObjectAttributes(new Set(['ObjectParts', 'Checksum']), { etag: '"abc"' })).not.toMatch(
      /ObjectParts|Checksum/,
    );
  });
});
