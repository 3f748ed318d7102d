/**
 * SigV4 verification and request-body integrity for the S3 data plane.
 *
 * Wiring, per request (raw node:http handler):
 *   1. `detectAuthForm(req.headersDistinct, req.url)`: 'anonymous' goes to the public-bucket path.
 *   2. `await verifier.verify({ method: req.method, rawTarget: req.url, headers: req.headersDistinct, now: new Date() })`
 *      with one long-lived `new SigV4Verifier(lookupSecret, { allowedRegions })`; on `ok: false`
 *      render `new S3Error(result.error, result.details)`.
 *   3. The caller's own checks (credential expiry, suspension, scope, dot segments).
 *   4. `createBodyPipeline(req.headersDistinct, { payloadHash: result.payloadHash })`; on `ok: false`
 *      render the error without forwarding anything.
 *   5. Apply `plan.forwardHeaders` to the upstream headers (before re-signing them); if
 *      `plan.drainBeforeForwarding`, run the body through the transforms first.
 *   6. Feed the request through the transforms into the upstream request (the data plane's
 *      `BodyStream`, handed to the proxy as its body): an S3Error from a transform destroys the
 *      upstream request with its held-back tail unsent, so the backend stores nothing.
 */

export * from './constants.js';
export { formatAmzDate, parseAmzDate, parseHttpDate, type SigningTimestamp } from './amz-date.js';
export {
  normalisePercentEncoding,
  percentDecodeToBytes,
  sigV4Encode,
  sigV4EncodeBytes,
} from './uri-encoding.js';
export {
  buildCanonicalRequest,
  canonicalHeaderValue,
  canonicalHeadersBlock,
  canonicalQueryString,
  canonicalUri,
  credentialScope,
  headerText,
  sha256Hex,
  splitRequestTarget,
  stringToSign,
  type CanonicalRequestParts,
  type CredentialScope,
  type RequestHeaders,
  type RequestTarget,
} from './canonical.js';
export { deriveSigningKey, SigningKeyCache, signaturesEqual, signStringToSign } from './signing-key.js';
export {
  detectAuthForm,
  parseAuthorizationHeader,
  parseCredential,
  parsePresignedQuery,
  type AuthForm,
  type HeaderAuthorization,
  type ParseResult,
  type PresignedAuthorization,
} from './authorization.js';
export {
  SigV4Verifier,
  verifySigV4,
  type AuthenticationForm,
  type CredentialSecrets,
  type SecretLookup,
  type VerifyFailure,
  type VerifyOptions,
  type VerifyRequest,
  type VerifyResult,
  type VerifySuccess,
} from './verify.js';
export {
  CHECKSUM_ALGORITHMS,
  checksumAlgorithmFromHeader,
  checksumAlgorithmFromName,
  checksumHeaderName,
  createDigest,
  digestOf,
  isChecksumValueHeader,
  isWellFormedDigest,
  validateDigestValue,
  type ChecksumAlgorithm,
  type DigestAlgorithm,
  type StreamingDigest,
} from './checksums.js';
export { AwsChunkedDecoder, type AwsChunkedDecoderOptions } from './aws-chunked.js';
export {
  PayloadVerifier,
  type ExpectedChecksum,
  type PayloadVerifierOptions,
  type VerifiedChecksum,
} from './payload-verifier.js';
export {
  createBodyPipeline,
  type BodyPipeline,
  type BodyPipelineOptions,
  type BodyPipelinePlan,
  type BodyPipelineRefusal,
  type ForwardHeaderChanges,
} from './body-pipeline.js';
