/**
 * A running sum with Neumaier's compensation, so the totals of a run (thousands of attempts of
 * very different sizes) do not drift with rounding.
 */
export class CompensatedSum {
  private sum = 0;
  private compensation = 0;

  /** Adds `value` to the sum. */
  add(value: number): void {
    const total = this.sum + value;
    this.compensation +=
      Math.abs(this.sum) >= Math.abs(value) ? this.sum - total + value : value - total + this.sum;
    this.sum = total;
  }

  /** The sum so far. */
  get value(): number {
    return this.sum + this.compensation;
  }
}
