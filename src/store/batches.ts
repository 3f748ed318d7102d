/**
 * Statements of concurrent callers written together (a group commit without waiting): a call made
 * while no batch is under way goes at once, alone; calls made while one is under way line up and go
 * together as the next, as soon as it is over. Nothing is held back for company, so a lone call is
 * as fast as an unbatched one, and the busier the database the more each statement carries: what a
 * statement costs the process (building it, the socket writes, the wake-ups) is paid once per batch.
 */

/**
 * One statement at a time for the batches that share it: statements of one process that lock the
 * same rows would only wait for each other in the database, where a wait costs far more (a
 * heavyweight lock, the statement re-checked) than waiting here.
 */
export class Lane {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work, work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

interface Waiting<Item, Result> {
  readonly item: Item;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

export class Batches<Item, Result> {
  readonly #write: (items: readonly Item[]) => Promise<readonly Result[]>;
  readonly #largest: number;
  readonly #lane: Lane;
  #waiting: Waiting<Item, Result>[] = [];
  #writing = false;

  /**
   * `write` takes a batch and gives each item's result, in order; should it fail, every call of
   * the batch fails with its error. A batch holds at most `largest` items, and goes once `lane`
   * (shared with other batches, or its own) is free.
   */
  constructor(
    write: (items: readonly Item[]) => Promise<readonly Result[]>,
    largest: number,
    lane: Lane = new Lane(),
  ) {
    this.#write = write;
    this.#largest = largest;
    this.#lane = lane;
  }

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.#largest);
      try {
        const results = await this.#lane.run(() => this.#write(batch.map((waiting) => waiting.item)));
        if (results.length !== batch.length)
          throw new Error(`a batch of ${batch.length} gave ${results.length} results`);
        batch.forEach((waiting, index) => waiting.resolve(results[index] as Result));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.#writing = false;
  }
}
