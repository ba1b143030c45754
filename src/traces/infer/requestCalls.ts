import { NONE } from '../SpanStore.js';
import type { SpanTree } from './SpanTree.js';

/** Two spans overlap when one starts this long (seconds) before the other ends, or more. */
const OVERLAP_SECONDS = 1e-6;

/** One call a request made downstream: its attempts, first to last. */
export interface LogicalCall {
  /** The callee's service id (see `SpanStore.services`). */
  readonly callee: number;
  readonly start: number;
  readonly end: number;
  /** Attempts made (1: no retry). */
  readonly attempts: number;
  /** Whether the call's last attempt failed. */
  readonly failed: boolean;
  /** The attempts' spans, each as [start, end] (seconds), in order. */
  readonly attemptSpans: readonly (readonly [number, number])[];
}

/** A request's calls, and the attempts whose callee no span names. */
export interface RequestCalls {
  readonly calls: readonly LogicalCall[];
  readonly unresolved: number;
}

interface Attempt {
  readonly callee: number;
  readonly start: number;
  readonly end: number;
  readonly resend: number;
  readonly error: boolean;
}

/**
 * The calls made by the request that server span `request` serves, read from the trace:
 * - an **attempt** is a client (or producer) span below the request — directly, or under spans of
 *   the same service — whose callee is the service of its child server span, else the service
 *   the client span names (`peer.service`, `server.address`); a server span of another service
 *   right below the request's spans (no client span recorded) is an attempt too;
 * - attempts to one callee form one **call** where a later one is a retry of the one before:
 *   its `http.request.resend_count` is ≥ 1, or, where the data has no resend counts, the one
 *   before failed and ended before it started.
 */
export function requestCalls(tree: SpanTree, request: number): RequestCalls {
  const { store } = tree;
  const service = store.service[request] as number;
  const attempts: Attempt[] = [];
  let unresolved = 0;
  const stack = [request];
  while (stack.length > 0) {
    const span = stack.pop() as number;
    for (const child of tree.childrenOf(span)) {
      const kind = store.kindOf(child);
      const childService = store.service[child] as number;
      if (kind === 'client' || kind === 'producer') {
        const callee = calleeOf(tree, child, service);
        if (callee === NONE) {
          unresolved++;
          continue;
        }
        const served = servedBy(tree, child);
        attempts.push({
          callee,
          start: store.start[child] as number,
          end: store.end[child] as number,
          resend: store.resend[child] as number,
          error: store.error[child] === 1 || (served !== NONE && store.error[served] === 1),
        });
      } else if ((kind === 'server' || kind === 'consumer') && childService !== service) {
        attempts.push({
          callee: childService,
          start: store.start[child] as number,
          end: store.end[child] as number,
          resend: store.resend[child] as number,
          error: store.error[child] === 1,
        });
      } else if (childService === service) {
        stack.push(child);
      }
    }
  }
  attempts.sort((a, b) => a.start - b.start);
  return { calls: groupAttempts(attempts), unresolved };
}

/** The server span answering client span `client` (its first server child), or NONE. */
function servedBy(tree: SpanTree, client: number): number {
  for (const child of tree.childrenOf(client)) {
    const kind = tree.store.kindOf(child);
    if (kind === 'server' || kind === 'consumer') return child;
  }
  return NONE;
}

function calleeOf(tree: SpanTree, client: number, caller: number): number {
  const served = servedBy(tree, client);
  if (served !== NONE) return tree.store.service[served] as number;
  const peer = tree.store.peer[client] as number;
  return peer === caller ? NONE : peer;
}

interface OpenCall {
  callee: number;
  start: number;
  end: number;
  attempts: number;
  failed: boolean;
  spans: [number, number][];
}

function groupAttempts(attempts: readonly Attempt[]): LogicalCall[] {
  const calls: OpenCall[] = [];
  const lastTo = new Map<number, OpenCall>();
  for (const attempt of attempts) {
    const last = lastTo.get(attempt.callee);
    const retry =
      last !== undefined &&
      (attempt.resend >= 1 ||
        (attempt.resend === NONE && last.failed && attempt.start >= last.end - OVERLAP_SECONDS));
    if (retry && last !== undefined) {
      last.attempts++;
      last.end = Math.max(last.end, attempt.end);
      last.failed = attempt.error;
      last.spans.push([attempt.start, attempt.end]);
      continue;
    }
    const call: OpenCall = {
      callee: attempt.callee,
      start: attempt.start,
      end: attempt.end,
      attempts: 1,
      failed: attempt.error,
      spans: [[attempt.start, attempt.end]],
    };
    calls.push(call);
    lastTo.set(attempt.callee, call);
  }
  return calls.map(({ spans, ...call }) => ({ ...call, attemptSpans: spans }));
}

/** Whether call `i` of `calls` overlaps another of them in time (made in parallel). */
export function overlapsAnother(calls: readonly LogicalCall[], i: number): boolean {
  const call = calls[i] as LogicalCall;
  return calls.some(
    (other, j) =>
      j !== i &&
      other.start < call.end - OVERLAP_SECONDS &&
      call.start < other.end - OVERLAP_SECONDS,
  );
}
