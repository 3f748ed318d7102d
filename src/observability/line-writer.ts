/**
 * Where the access log goes: a pipe (or file) that must never stall the event loop and that
 * several processes (the storage workers) share. pino's own destination either writes
 * synchronously, blocking the process when the reader falls behind, or asynchronously one write
 * per thread-pool round trip, which under load falls behind by itself.
 *
 * This writer collects lines and writes them with plain non-blocking write(2) calls of whole
 * lines, each at most PIPE_BUF (4096) bytes, so the lines of several processes never interleave.
 * It writes in bursts: everything waiting, in such writes back to back, at the end of the
 * event-loop turn in which BURST_BYTES have gathered, else LINGER_MS after the first line waiting.
 * The first write of a burst wakes the reader, which costs the writer far more than the copy; the
 * writes after it find the reader awake. On the reference VM a storage worker that wrote no line
 * spent 8% less CPU per presigned GET than one writing each 4 KiB as soon as it had gathered;
 * writing in bursts took 4.5% of that away (BENCHMARKS.md, change 16).
 * A pipe that is full (EAGAIN) is tried again a little later, and while it stays full at most
 * `maxBufferedBytes` wait before lines are dropped and counted.
 */
import fs from 'node:fs';

/** Writes of up to this many bytes to a pipe are atomic (POSIX PIPE_BUF on Linux). */
const ATOMIC_WRITE_BYTES = 4096;
/** What gathers before a burst is written without waiting for LINGER_MS. */
const BURST_BYTES = 16 * ATOMIC_WRITE_BYTES;
const RETRY_AFTER_MS = 10;
/** How long a line waits for others to share its write. */
const LINGER_MS = 10;
/** At shutdown, how long flush() keeps trying a full pipe before giving the rest up. */
const FINAL_FLUSH_MS = 2000;

export interface LineWriterOptions {
  /** File descriptor to write to; 1 (stdout) unless given. */
  readonly fd?: number;
  readonly maxBufferedBytes: number;
  /** Lines given up because too much was waiting (or still waiting at the final flush). */
  readonly onDrop?: (lines: number) => void;
}

export class LineWriter {
  readonly #fd: number;
  readonly #maxBufferedBytes: number;
  readonly #onDrop: (lines: number) => void;
  /** Whole lines not yet written, oldest first; the first may be the unwritten rest of a line. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #scheduled = false;
  #linger: NodeJS.Timeout | null = null;
  #retry: NodeJS.Timeout | null = null;

  constructor(options: LineWriterOptions) {
    this.#fd = options.fd ?? 1;
    this.#maxBufferedBytes = options.maxBufferedBytes;
    this.#onDrop = options.onDrop ?? (() => undefined);
    // Node puts stdout into non-blocking mode when it opens the stream; without that a full pipe
    // would block write(2) instead of answering EAGAIN.
    if (this.#fd === 1) void process.stdout.writable;
  }

  /** pino's destination interface: one or more complete lines. */
  write(lines: string): boolean {
    const bytes = Buffer.from(lines, 'utf8');
    if (this.#pendingBytes + bytes.length > this.#maxBufferedBytes) {
      this.#onDrop(countLines(bytes));
      return true;
    }
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    // While a retry waits for a full pipe, it writes what has gathered by then.
    if (this.#scheduled || this.#retry !== null) return true;
    if (this.#pendingBytes >= BURST_BYTES) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#stopLingering();
        this.#drain();
      });
    } else {
      this.#lingerWhileWaiting();
    }
    return true;
  }

  /** Writes what waits once it has waited LINGER_MS (a retry, when one is due, writes it instead). */
  #lingerWhileWaiting(): void {
    if (this.#pendingBytes === 0 || this.#retry !== null) {
      this.#stopLingering();
      return;
    }
    this.#linger ??= setTimeout(() => {
      this.#linger = null;
      if (!this.#scheduled && this.#retry === null) this.#drain();
    }, LINGER_MS);
  }

  #stopLingering(): void {
    if (this.#linger === null) return;
    clearTimeout(this.#linger);
    this.#linger = null;
  }

  /** Writes what waits, trying a full pipe again for up to two seconds (shutdown); drops the rest. */
  flush(done?: () => void): void {
    this.#stopLingering();
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
    const deadline = Date.now() + FINAL_FLUSH_MS;
    while (!this.#drain() && Date.now() < deadline) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_AFTER_MS);
    }
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
    if (this.#pendingBytes > 0) {
      this.#onDrop(this.#pending.reduce((lines, chunk) => lines + countLines(chunk), 0));
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    done?.();
  }

  /** Writes until nothing waits (true), or until the pipe is full (false, a retry scheduled). */
  #drain(): boolean {
    while (this.#pending.length > 0) {
      const chunk = this.#nextChunk();
      let written: number;
      try {
        written = fs.writeSync(this.#fd, chunk);
      } catch (error) {
        this.#pending.unshift(chunk);
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          // Not a full pipe: the log cannot be written at all (closed stdout); give it up.
          this.#onDrop(this.#pending.reduce((lines, pending) => lines + countLines(pending), 0));
          this.#pending = [];
          this.#pendingBytes = 0;
          return true;
        }
        this.#retry ??= setTimeout(() => {
          this.#retry = null;
          this.#drain();
        }, RETRY_AFTER_MS);
        return false;
      }
      this.#pendingBytes -= written;
      if (written < chunk.length) this.#pending.unshift(chunk.subarray(written));
    }
    return true;
  }

  /** Takes whole lines from the front, as many as fit in one atomic write (at least one). */
  #nextChunk(): Buffer {
    const first = this.#pending.shift() as Buffer;
    if (first.length >= ATOMIC_WRITE_BYTES || this.#pending.length === 0) return first;
    const parts = [first];
    let size = first.length;
    while (this.#pending.length > 0) {
      const next = this.#pending[0] as Buffer;
      if (size + next.length > ATOMIC_WRITE_BYTES) break;
      parts.push(next);
      size += next.length;
      this.#pending.shift();
    }
    return parts.length === 1 ? first : Buffer.concat(parts, size);
  }
}

function countLines(chunk: Buffer): number {
  let lines = 0;
  for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines += 1;
  return Math.max(lines, 1);
}
