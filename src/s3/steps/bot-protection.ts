/**
 * Bot protection in front of the endpoint (decisions.md). In the default `anonymous` mode only
 * traffic that carries no signature at all and no recognisable User-Agent is challenged: signed
 * requests always go on to verification, because real S3 tools (s3cmd, anything on Python's
 * http.client) send no User-Agent. `strict` challenges every request without one; `off` none.
 * The challenge is an HTML page, deliberately not an S3 error document: that is how clients
 * (and the spec's troubleshooting table) tell bot protection from the endpoint itself.
 */
export type BotProtectionMode = 'anonymous' | 'strict' | 'off';

/** A User-Agent names a product when it contains a word of at least two letters ("curl/8", "test"). */
export function hasRecognisableUserAgent(userAgent: string | undefined): boolean {
  return userAgent !== undefined && /[A-Za-z]{2}/.test(userAgent);
}

export function requiresChallenge(
  mode: BotProtectionMode,
  request: { signed: boolean; userAgent: string | undefined },
): boolean {
  if (mode === 'off' || hasRecognisableUserAgent(request.userAgent)) return false;
  return mode === 'strict' || !request.signed;
}

export const CHALLENGE_STATUS = 403;

export const CHALLENGE_PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Request challenged</title></head>
<body>
<h1>Request challenged by bot protection</h1>
<p>This request carried no signature and no recognisable User-Agent, so it was stopped before
it reached the storage endpoint. Send a descriptive <code>User-Agent</code> header (S3 tools and
SDKs do) or sign the request.</p>
</body>
</html>
`;
