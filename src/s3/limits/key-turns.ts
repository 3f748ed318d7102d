/**
 * Turns at a key within this process: the counted writes of one key (storage-quotas.ts) line up
 * here, first come first served, and only the one whose turn it is asks the database for the key,
 * which other instances may hold too. Waiting here costs nothing; asking the database again and
 * again would compete with the holder for the usage rows it settles on.
 *
 * A key is a name within a space (an object key within its bucket): every upload under a quota
 * takes a turn, and one string joined of the two per upload cost a copy and its hash each time
 * (BENCHMARKS.md, change 33), where the request's own strings are looked up as they are.
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

type Tail = Promise<void> | FreeTurn;

export class KeyTurns {
  /**
   * Per space, per name, the last turn taken: a free turn, or the promise that resolves once every
   * turn taken so far has ended. A space goes once no turn is taken in it.
   */
  readonly #spaces = new Map<string, Map<string, Tail>>();
  #size = 0;

  /** Keys with turns taken now (for tests and metrics). */
  get size(): number {
    return this.#size;
  }

  /**
   * The turn at `name` in `space` when nobody has one (the common case: uploads of different
   * keys), taken at once; null when another turn is taken (`take` waits for it).
   */
  takeFree(space: string, name: string): EndTurn | null {
    const turn = new FreeTurn();
    return this.claimFree(space, name, turn) ? () => this.endFree(space, name, turn) : null;
  }

  /** Takes the turn at `name` in `space` as `turn` when nobody has one; whether it was free. */
  claimFree(space: string, name: string, turn: FreeTurn): boolean {
    let tails = this.#spaces.get(space);
    if (tails === undefined) {
      tails = new Map();
      this.#spaces.set(space, tails);
    } else if (tails.has(name)) return false;
    tails.set(name, turn);
    this.#size += 1;
    return true;
  }

  /** Ends `turn`, taken at `name` in `space` by claimFree. */
  endFree(space: string, name: string, turn: FreeTurn): void {
    turn.markEnded();
    this.#release(space, name, turn);
  }

  /**
   * Waits for the turns taken before this one at `name` in `space` to end, at most until
   * `deadline` (performance.now() time); the function that ends this turn, or null when the
   * deadline passed first (the turn is given up: those after it do not wait for it).
   */
  async take(space: string, name: string, deadline: number): Promise<EndTurn | null> {
    const last = this.#spaces.get(space)?.get(name);
    const before = last instanceof FreeTurn ? last.done : last;
    const end = this.#claim(space, name, before);
    if (before !== undefined && !(await settledBy(before, deadline))) {
      end();
      return null;
    }
    return end;
  }

  /** Puts a turn at `name` after `before` (the turns already taken there); the function that ends it. */
  #claim(space: string, name: string, before: Promise<void> | undefined): EndTurn {
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before === undefined ? mine : before.then(() => mine);
    let tails = this.#spaces.get(space);
    if (tails === undefined) {
      tails = new Map();
      this.#spaces.set(space, tails);
    }
    if (!tails.has(name)) this.#size += 1;
    tails.set(name, tail);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      release();
      this.#release(space, name, tail);
    };
  }

  /** Frees `name` in `space` when `tail` is still the last turn taken there. */
  #release(space: string, name: string, tail: Tail): void {
    const tails = this.#spaces.get(space);
    if (tails?.get(name) !== tail) return;
    tails.delete(name);
    this.#size -= 1;
    if (tails.size === 0) this.#spaces.delete(space);
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
