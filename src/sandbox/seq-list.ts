// A webhook's deliveries as a list of their seqs, oldest first: eight bytes a delivery in one typed array,
// where an array of ids cost some sixty and a record in memory a kilobyte. A page of them is found here by
// bisection and its records read from the database by seq (Store.deliveryAt).
import type { Sequence } from './page.js';

export class SeqList implements Sequence<number> {
  private seqs = new Float64Array(16);
  /** Where the list begins in `seqs` (the expired are let go from the front). */
  private head = 0;
  private end = 0;

  get length(): number {
    return this.end - this.head;
  }

  at(i: number): number | undefined {
    return i >= 0 && i < this.length ? this.seqs[this.head + i] : undefined;
  }

  /** Appends a seq higher than every one in the list. */
  push(seq: number): void {
    if (this.end === this.seqs.length) this.grow();
    this.seqs[this.end++] = seq;
  }

  /** Lets go of the seqs below `seq`, but those `keep` answers true for (they stay, in order, in front). */
  dropBelow(seq: number, keep: (seq: number) => boolean): void {
    let kept = 0;
    let i = this.head;
    for (; i < this.end && this.seqs[i]! < seq; i++)
      if (keep(this.seqs[i]!)) this.seqs[this.head + kept++] = this.seqs[i]!;
    // the kept ones move up against the rest
    this.seqs.copyWithin(i - kept, this.head, this.head + kept);
    this.head = i - kept;
    if (this.head > this.seqs.length / 2) this.compact();
  }

  private grow(): void {
    if (this.head > this.seqs.length / 4) return this.compact();
    const next = new Float64Array(this.seqs.length * 2);
    next.set(this.seqs.subarray(this.head, this.end));
    this.end -= this.head;
    this.head = 0;
    this.seqs = next;
  }

  /** Moves the list to the front, in an array sized to it (an emptied list gives back what it held). */
  private compact(): void {
    const size = Math.max(16, 2 ** Math.ceil(Math.log2(this.length + 1)));
    const next = new Float64Array(size);
    next.set(this.seqs.subarray(this.head, this.end));
    this.end -= this.head;
    this.head = 0;
    this.seqs = next;
  }
}
