/** Called once with the reason when a {@link Cancellation} aborts. */
export type AbortListener = (reason: unknown) => void;

const NO_OP = (): void => {};

/** The signal of work nothing can abort. */
const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/**
 * The executors' abort source: what `retry()` and the adapters use inside a call to end an
 * attempt or a wait. An `AbortSignal` is the right thing to hand to user code (fetch takes one),
 * but creating one and adding listeners to it costs more than the rest of a call that succeeds at
 * once (see docs/runtime.md, "Speed"); so the executors pass this plain object between themselves
 * and create a real signal only when something asks for {@link signal}.
 *
 * A cancellation aborts once: `abort()` records the reason, aborts the signal if one was made, and
 * calls each listener once, in the order added.
 */
export class Cancellation {
  /** One that never aborts, for calls nobody can abort: its listeners are never kept. */
  static readonly never: Cancellation = new Cancellation(false);

  #aborted = false;
  #reason: unknown;
  #listeners: AbortListener[] | undefined;
  #controller: AbortController | undefined;
  /** The caller's signal this one follows, handed out as its own {@link signal}. */
  #source: AbortSignal | undefined;
  #unfollow: () => void = NO_OP;

  /** @param abortable false for {@link never} alone. */
  private constructor(readonly abortable: boolean) {}

  /** A cancellation aborted only by {@link abort}. */
  static create(): Cancellation {
    return new Cancellation(true);
  }

  /**
   * A cancellation that aborts with `signal` (one listener on it, removed by {@link release}) and
   * gives that same signal out as its own: no new signal is made for it.
   */
  static following(signal: AbortSignal): Cancellation {
    const cancellation = new Cancellation(true);
    cancellation.#source = signal;
    if (signal.aborted) {
      cancellation.abort(signal.reason);
      return cancellation;
    }
    const onAbort = () => cancellation.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    cancellation.#unfollow = () => signal.removeEventListener('abort', onAbort);
    return cancellation;
  }

  /**
   * A cancellation of its own that also aborts when this one does (with this one's reason), until
   * {@link release}d.
   */
  child(): Cancellation {
    const child = Cancellation.create();
    if (this.#aborted) child.abort(this.#reason);
    else child.#unfollow = this.onAbort((reason) => child.abort(reason));
    return child;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** An `AbortSignal` that follows this cancellation, made on first use (or the one followed). */
  get signal(): AbortSignal {
    if (this.#source !== undefined) return this.#source;
    if (!this.abortable) return NEVER_ABORTED;
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts with `reason` (once; later calls do nothing). */
  abort(reason: unknown): void {
    if (this.#aborted || !this.abortable) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#unfollow();
    this.#unfollow = NO_OP;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener(reason);
  }

  /**
   * Calls `listener` with the reason when this aborts (never if it has already: check
   * {@link aborted} first). Returns what removes it.
   */
  onAbort(listener: AbortListener): () => void {
    if (this.#aborted || !this.abortable) return NO_OP;
    if (this.#listeners === undefined) this.#listeners = [listener];
    else this.#listeners.push(listener);
    return () => {
      const listeners = this.#listeners;
      if (listeners === undefined) return;
      const index = listeners.indexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    };
  }

  /** Stops following the signal or the parent this was made from (the work is over). */
  release(): void {
    this.#unfollow();
    this.#unfollow = NO_OP;
  }

  /** Throws the reason if aborted. */
  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }
}
