/** The names SigV4 itself defines; the S3 wire vocabulary around them lives in src/protocol. */

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
export const SCOPE_TERMINATOR = 'aws4_request';
export const S3_SERVICE = 's3';
