/**
 * Turns at a key within this process: the counted writes of one key (storage-quotas.ts) line up
 * here, first come first served, and only the one whose turn it is asks the database for the key,
 * which other instances may hold too. Waiting here costs nothing; asking the database again and
 * again would compete with the holder for the usage rows it settles on.
 */
import { performance } from 'node:perf_hooks';

/** Ends a turn; calling it again does nothing. */
export type EndTurn = () => void;

/**
 * A turn taken at a free key (`claimFree`, the common case): its promise is made only when another
 * turn comes to wait for it, so an uncontended turn costs no object beyond itself. A class to
 * extend: an upload from a lease is its own turn (leased-upload.ts).
 */
export class FreeTurn {
  #ended = false;
  #done: Promise<void> | null = null;
  #resolve: (() => void) | null = null;

  /** Resolves once the turn has ended. */
  get done(): Promise<void> {
    this.#done ??= this.#ended
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.#resolve = resolve;
        });
    return this.#done;
  }

  /** Marks the turn ended (KeyTurns.endFree, which also frees its key). */
  markEnded(): void {
    this.#ended = true;
    this.#resolve?.();
  }
}

export class KeyTurns {
  /**
   * Per key, the last turn taken: a free turn, or the promise that resolves once every turn taken
   * so far has ended.
   */
  readonly #tails = new Map<string, Promise<void> | FreeTurn>();

  /** Keys with turns taken now (for tests and metrics). */
  get size(): number {
    return this.#tails.size;
  }

  /**
   * The turn at `key` when nobody has one (the common case: uploads of different keys), taken at
   * once; null when another turn is taken (`take` waits for it).
   */
  takeFree(key: string): EndTurn | null {
    const turn = new FreeTurn();
    return this.claimFree(key, turn) ? () => this.endFree(key, turn) : null;
  }

  /** Takes the turn at `key` as `turn` when nobody has one; whether it was free. */
  claimFree(key: string, turn: FreeTurn): boolean {
    if (this.#tails.has(key)) return false;
    this.#tails.set(key, turn);
    return true;
  }

  /** Ends `turn`, taken at `key` by claimFree. */
  endFree(key: string, turn: FreeTurn): void {
    turn.markEnded();
    if (this.#tails.get(key) === turn) this.#tails.delete(key);
  }

  /**
   * Waits for the turns taken before this one at `key` to end, at most until `deadline`
   * (performance.now() time); the function that ends this turn, or null when the deadline passed
   * first (the turn is given up: those after it do not wait for it).
   */
  async take(key: string, deadline: number): Promise<EndTurn | null> {
    const last = this.#tails.get(key);
    const before = last instanceof FreeTurn ? last.done : last;
    const end = this.#claim(key, before);
    if (before !== undefined && !(await settledBy(before, deadline))) {
      end();
      return null;
    }
    return end;
  }

  /** Puts a turn at `key` after `before` (the turns already taken there); the function that ends it. */
  #claim(key: string, before: Promise<void> | undefined): EndTurn {
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before === undefined ? mine : before.then(() => mine);
    this.#tails.set(key, tail);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
  }
}

/**
 * Whether `promise` resolves before `deadline`: one timer, cleared when it does. Every write
 * waiting at a busy key comes here; an AbortController and a promised delay for each made an
 * upload to a key many clients write cost 1.38 times the CPU (BENCHMARKS.md, change 32).
 */
function settledBy(promise: Promise<void>, deadline: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
