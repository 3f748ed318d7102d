/**
 * Statements of concurrent callers written together (a group commit without waiting): a call made
 * while no batch of its key is under way goes at once (with those made in the same turn of the
 * event loop); calls made while one is under way line up and go together as the next, as soon as
 * it is over. Nothing is held back for company, so
 * a lone call is as fast as an unbatched one, and the busier the database the more each statement
 * carries: what a statement costs the process (building it, the socket writes, the wake-ups) is
 * paid once per batch. Calls of different keys (statements that lock different rows) never share a
 * batch nor wait for each other's, so a statement waiting for a lock holds up only its own key.
 */

/** The result of an item whose part of the batch failed: its call fails with `error`. */
export class Failed {
  constructor(readonly error: unknown) {}
}

interface Waiting<Item, Result> {
  readonly item: Item;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One statement at a time per key, for the batches that share the lanes: statements of one process
 * that lock the same rows would only wait for each other in the database, where a wait costs far
 * more (a heavyweight lock, the statement checked again) than waiting here.
 */
export class Lanes {
  /** Per key in use, the end of its last statement and how many are under way or waiting. */
  readonly #lanes = new Map<string, { tail: Promise<unknown>; using: number }>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = { tail: Promise.resolve(), using: 0 };
      this.#lanes.set(key, lane);
    }
    const used = lane;
    used.using += 1;
    const result = used.tail.then(work, work);
    used.tail = result.then(
      () => this.#leave(key, used),
      () => this.#leave(key, used),
    );
    return result;
  }

  /** Keys with statements under way or waiting (for tests). */
  get size(): number {
    return this.#lanes.size;
  }

  #leave(key: string, lane: { using: number }): void {
    lane.using -= 1;
    if (lane.using === 0 && this.#lanes.get(key) === lane) this.#lanes.delete(key);
  }
}

export class Batches<Item, Result> {
  readonly #write: (items: readonly Item[]) => Promise<readonly (Result | Failed)[]>;
  readonly #largest: number;
  readonly #lanes: Lanes;
  /** Per key with a batch under way, the calls waiting for the next. */
  readonly #waiting = new Map<string, Waiting<Item, Result>[]>();

  /**
   * `write` takes a batch and gives each item's result, in order (`Failed` fails that item's
   * call); should it throw, every call of the batch fails with its error. A batch holds at most
   * `largest` items, and goes once its key's lane in `lanes` (shared with other batches, or its
   * own) is free.
   */
  constructor(
    write: (items: readonly Item[]) => Promise<readonly (Result | Failed)[]>,
    largest: number,
    lanes: Lanes = new Lanes(),
  ) {
    this.#write = write;
    this.#largest = largest;
    this.#lanes = lanes;
  }

  submit(key: string, item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const waiting = this.#waiting.get(key);
      if (waiting !== undefined) waiting.push({ item, resolve, reject });
      else {
        const queue = [{ item, resolve, reject }];
        this.#waiting.set(key, queue);
        void this.#drain(key, queue);
      }
    });
  }

  async #drain(key: string, queue: Waiting<Item, Result>[]): Promise<void> {
    try {
      while (queue.length > 0) {
        // Taken once the lane is free, so that the calls made while it was busy go too.
        const { batch, outcome } = await this.#lanes.run(key, async () => {
          const taken = queue.splice(0, this.#largest);
          try {
            const results = await this.#write(taken.map((waiting) => waiting.item));
            if (!Array.isArray(results) || results.length !== taken.length)
              throw new Error(`a batch of ${taken.length} gave no result for each`);
            return { batch: taken, outcome: { results } };
          } catch (error) {
            return { batch: taken, outcome: { error } };
          }
        });
        batch.forEach((waiting, index) => {
          const result =
            'error' in outcome ? new Failed(outcome.error) : (outcome.results[index] as Result | Failed);
          if (result instanceof Failed) waiting.reject(result.error);
          else waiting.resolve(result);
        });
      }
    } finally {
      this.#waiting.delete(key);
    }
  }
}
