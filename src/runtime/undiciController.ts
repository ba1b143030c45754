import type { Dispatcher } from 'undici';

/** What the controller reports to: the call it belongs to. */
export interface AbortableCall {
  /** The handler aborted the call (its `signal`), with this reason. */
  handlerAborted(reason: Error): void;
}

/**
 * The controller the handler sees for the whole call. Pause and resume act on the attempt being
 * forwarded (a pause before then is applied when it is attached); abort ends the call.
 */
export class ExchangeController implements Dispatcher.DispatchController {
  #target: Dispatcher.DispatchController | undefined;
  #paused = false;
  #reason: Error | null = null;
  readonly #exchange: AbortableCall;

  constructor(exchange: AbortableCall) {
    this.#exchange = exchange;
  }

  attach(target: Dispatcher.DispatchController): void {
    this.#target = target;
    if (this.#paused) target.pause();
  }

  get aborted(): boolean {
    return this.#reason !== null;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get reason(): Error | null {
    return this.#reason;
  }

  get rawHeaders() {
    return this.#target?.rawHeaders;
  }

  get rawTrailers() {
    return this.#target?.rawTrailers;
  }

  abort(reason: Error): void {
    if (this.#reason !== null) return;
    this.#reason = reason ?? new Error('aborted');
    this.#exchange.handlerAborted(this.#reason);
  }

  pause(): void {
    this.#paused = true;
    this.#target?.pause();
  }

  resume(): void {
    this.#paused = false;
    this.#target?.resume();
  }
}
