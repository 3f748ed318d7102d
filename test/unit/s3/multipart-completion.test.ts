import { describe, expect, it } from 'vitest';
import { fillEtag, lacksEtag } from '../../../src/s3/multipart-completion.js';

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
