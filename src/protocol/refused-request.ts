/**
 * Answers written straight to a socket for requests Node's HTTP parser refused (both planes): the
 * parser does not say which method it read, only which bytes it failed in (`rawPacket`, the read
 * it was parsing). Those start with the refused request's line only when its head arrived in one
 * read and nothing came before it in that read. An answer to a HEAD must carry no body (the
 * client would read the body as the start of the next answer), so a body goes only where the
 * bytes show a request line of another method and no HEAD request line after it (pipelined).
 */

/**
 * The start of a request line: a method (an HTTP token) and a space, then a target rather than the
 * version (bytes from the middle of a long target end as `aaaa HTTP/1.1`). The target itself may be
 * malformed: that is often why the request was refused.
 */
const REQUEST_LINE_START = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (?!HTTP\/)/;
/** Enough for any method a client sends, its space and what follows. */
const LINE_START_BYTES = 64;

export function refusalMayCarryBody(rawPacket: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false;
  const method = REQUEST_LINE_START.exec(rawPacket.toString('latin1', 0, LINE_START_BYTES))?.[1];
  return method !== undefined && method !== 'HEAD' && !rawPacket.includes('\nHEAD ', 0, 'latin1');
}
