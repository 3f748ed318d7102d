/**
 * The time of a log line, as `Date#toISOString` writes it (`2026-11-28T10:02:54.807Z`), for a
 * line per request: the text up to the second is made once a second and the milliseconds are
 * appended. A `Date` and its `toISOString` per line cost a storage worker about as much as the
 * rest of its access line (BENCHMARKS.md, change 22).
 */
export class IsoClock {
  /** The second (ms since the epoch, floored) that `#prefix` spells. */
  #second = Number.NaN;
  /** `YYYY-MM-DDTHH:MM:SS.` of `#second`. */
  #prefix = '';

  /** `at` (ms since the epoch, a whole number; Date.now() by default) in ISO 8601, UTC. */
  text(at: number = Date.now()): string {
    // Also before 1970, where % keeps the sign.
    const millis = ((at % 1000) + 1000) % 1000;
    const second = at - millis;
    if (second !== this.#second) {
      this.#second = second;
      // Everything up to and including the decimal point, which a whole second's text ends with.
      this.#prefix = new Date(second).toISOString().slice(0, -4);
    }
    return `${this.#prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  }
}
