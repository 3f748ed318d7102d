import { createHash, createHmac } from 'node:crypto';

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * An independent SigV4 presigned-URL signature computation (AWS's documented algorithm, S3 flavour:
 * path as sent, UNSIGNED-PAYLOAD), to check the control plane's presigner against.
 */
export function expectedPresignedSignature(
  url: string,
  method: string,
  secret: string,
  headers: Record<string, string>,
): string {
  const parsed = new URL(url);
  const query = parsed.search
    .slice(1)
    .split('&')
    .map((pair) => pair.split('=') as [string, string])
    .filter(([name]) => name !== 'X-Amz-Signature')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const param = (name: string) => decodeURIComponent(query.find(([key]) => key === name)?.[1] ?? '');
  const signedHeaders = param('X-Amz-SignedHeaders').split(';');
  const headerValues: Record<string, string> = { ...headers, host: parsed.host };
  const canonicalRequest = [
    method,
    parsed.pathname,
    query.map(([name, value]) => `${name}=${value}`).join('&'),
    signedHeaders.map((name) => `${name}:${(headerValues[name] ?? '').trim()}\n`).join(''),
    signedHeaders.join(';'),
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const amzDate = param('X-Amz-Date');
  const [, date, region, service] = param('X-Amz-Credential').split('/') as [string, string, string, string];
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
  ].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}
