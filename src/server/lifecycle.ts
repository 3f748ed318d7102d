/**
 * Where the instance is in its life, as readiness reports it. Shutdown first drains: the instance
 * keeps serving but its readiness answers 503, so that load balancers and orchestrators stop sending
 * it new traffic before its listeners stop accepting.
 */
export class Lifecycle {
  #draining = false;

  /** True from the start of shutdown: readiness (GET /v1/health) answers 503. */
  get draining(): boolean {
    return this.#draining;
  }

  startDraining(): void {
    this.#draining = true;
  }
}

/** Resolves after `ms` milliseconds (at once for 0). */
export function drainDelay(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
