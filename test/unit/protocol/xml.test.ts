import { describe, expect, it } from 'vitest';
import { decodeXmlText } from '../../../src/protocol/xml.js';
import { deleteObjectKeys } from '../../../src/s3/upstream/delete-objects.js';
import { thrownCode } from '../../support/thrown-code.js';

describe('decodeXmlText', () => {
  it('reads the predefined entities and character references as an XML reader does', () => {
    expect(decodeXmlText('a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos;')).toBe(`a&b <c> "d" 'e'`);
    expect(decodeXmlText('&#38;&#x26;&#x2F;')).toBe('&&/');
    expect(decodeXmlText('&#x1F600; plain')).toBe('\u{1F600} plain');
  });

  it('refuses what XML does not allow: other entities, a bare ampersand, characters XML cannot carry', () => {
    for (const text of ['&nbsp;', 'a & b', '&#0;', '&#xD800;', '&#x110000;', '&amp']) {
      expect(decodeXmlText(text)).toBeNull();
    }
  });
});

describe('deleteObjectKeys', () => {
  it('names each key as the store reads it, references decoded and whitespace kept', () => {
    const body = Buffer.from(
      '<Delete><Object><Key>a&amp;b.txt</Key></Object><Object><Key> users/42/&#60;x&#62; </Key></Object></Delete>',
    );
    expect(deleteObjectKeys(body)).toEqual(['a&b.txt', ' users/42/<x> ']);
  });

  it('refuses a key with a reference XML does not define as MalformedXML', () => {
    const body = Buffer.from('<Delete><Object><Key>a&nbsp;b</Key></Object></Delete>');
    expect(thrownCode(() => deleteObjectKeys(body))).toBe('MalformedXML');
  });
});
