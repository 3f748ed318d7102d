/**
 * Answers written straight to a socket for requests Node's HTTP parser refused (both planes): the
 * parser does not say which method it read, only which bytes it failed in (`rawPacket`, the read
 * it was parsing). Those start with the refused request's line only when its head arrived in one
 * read and nothing came before it in that read. An answer to a HEAD must carry no body (the
 * client would read the body as the start of the next answer), so a body goes only where the
 * bytes show a request line of another method and no HEAD request line after it (pipelined).
 */

/**
 * A whole request line at the start: its method (an HTTP token), target and version. Bytes from
 * the middle of a request rarely look like one; a line cut short by the end of the read does not.
 */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) [^ \r\n]+ HTTP\/\d\.\d\r?\n/;

export function refusalMayCarryBody(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false;
  const method = REQUEST_LINE.exec(rawPacket.toString('latin1'))?.[1];
  return method !== undefined && method !== 'HEAD' && !rawPacket.includes('\nHEAD ', 0, 'latin1');
}
