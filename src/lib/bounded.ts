// A bounded number of reads in flight at once, shared by whoever holds it: a view that reads something for
// each of a hundred runs (names, scorecards) stays under a rate limit however many it asks for.

export class Bounded {
  #active = 0;
  readonly #queue: Array<() => void> = [];

  constructor(readonly max: number) {}

  /** `read` once a place is free; the place is given back however it ends. */
  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.#active >= this.max) await new Promise<void>((go) => this.#queue.push(go));
    this.#active++;
    try {
      return await read();
    } finally {
      this.#active--;
      this.#queue.shift()?.();
    }
  }
}
