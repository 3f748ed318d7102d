/**
 * Statements of concurrent callers written together (a group commit without waiting): a call made
 * while no batch is under way goes at once, alone; calls made while one is under way line up and go
 * together as the next, as soon as it is over. Nothing is held back for company, so a lone call is
 * as fast as an unbatched one, and the busier the database the more each statement carries: what a
 * statement costs the process (building it, the socket writes, the wake-ups) is paid once per batch.
 */

interface Waiting<Item, Result> {
  readonly item: Item;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

export class Batches<Item, Result> {
  readonly #write: (items: readonly Item[]) => Promise<readonly Result[]>;
  readonly #largest: number;
  #waiting: Waiting<Item, Result>[] = [];
  #writing = false;

  /**
   * `write` takes a batch and gives each item's result, in order; should it fail, every call of
   * the batch fails with its error. A batch holds at most `largest` items.
   */
  constructor(write: (items: readonly Item[]) => Promise<readonly Result[]>, largest: number) {
    this.#write = write;
    this.#largest = largest;
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
        const results = await this.#write(batch.map((waiting) => waiting.item));
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
