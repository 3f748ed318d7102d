/**
 * A request rate limit's burst, for both planes: the storage endpoint's token buckets hold this
 * many requests, and the control plane reports it.
 */

/** The requests a rate admits at once: its burst, or when it names none one second's worth (at least one). */
export function burstOf(rate: { readonly requestsPerSecond: number; readonly burst: number | null }): number {
  return rate.burst ?? Math.max(1, rate.requestsPerSecond);
}
