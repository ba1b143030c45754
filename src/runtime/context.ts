import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What travels with a request through a service: its class, its deadline, and which attempt of
 * the caller's hop is running. Set at the edge (or from the inbound header), read by every
 * outbound call made while serving the request.
 */
export interface RequestContext {
  /** The request's priority class. */
  readonly className: string;
  /** Absolute deadline, ms since the epoch (wall clock), if any. */
  readonly deadlineMs?: number;
  /** The attempt of the enclosing `retry()` (0 for the first try), if any. */
  readonly attempt?: number;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The context of the request being served, if any. */
export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` with `context` as the current request context: every `retry()`, `difftryFetch` and
 * interceptor call made inside (synchronously or in later async steps) sees its class and
 * deadline.
 * @example
 * ```ts
 * await runWithContext({ className: 'high', deadlineMs: Date.now() + 2000 }, () => handle(req));
 * ```
 */
export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * {@link runWithContext} for a function of two arguments, without a closure to carry them (the
 * executor runs every attempt through it).
 */
export function runWithContextOf<A, B, T>(
  context: RequestContext,
  fn: (a: A, b: B) => T,
  a: A,
  b: B,
): T {
  return storage.run(context, fn, a, b);
}
