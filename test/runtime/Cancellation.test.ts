import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../src/runtime/Cancellation.js';

describe('Cancellation', () => {
  it('aborts once: the first reason stays, each listener runs once, in the order added', () => {
    const cancellation = Cancellation.create();
    const calls: string[] = [];
    cancellation.onAbort((reason) => calls.push(`a:${String(reason)}`));
    cancellation.onAbort((reason) => calls.push(`b:${String(reason)}`));
    cancellation.abort('first');
    cancellation.abort('second');
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBe('first');
    expect(calls).toEqual(['a:first', 'b:first']);
    expect(() => cancellation.throwIfAborted()).toThrow('first');
  });

  it('a removed listener is not called, nor one added after the abort', () => {
    const cancellation = Cancellation.create();
    const calls: string[] = [];
    const remove = cancellation.onAbort(() => calls.push('removed'));
    cancellation.onAbort(() => calls.push('kept'));
    remove();
    cancellation.abort(new Error('x'));
    cancellation.onAbort(() => calls.push('late'));
    expect(calls).toEqual(['kept']);
  });

  it('makes its signal only when asked, aborted with the same reason before or after', () => {
    const before = Cancellation.create();
    const reason = new Error('gone');
    before.abort(reason);
    expect(before.signal.aborted).toBe(true);
    expect(before.signal.reason).toBe(reason);

    const after = Cancellation.create();
    const { signal } = after;
    expect(signal.aborted).toBe(false);
    expect(after.signal).toBe(signal);
    after.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
  });

  it('follows a caller signal with one listener, hands that signal out, and stops on release', () => {
    const caller = new AbortController();
    const following = Cancellation.following(caller.signal);
    expect(following.signal).toBe(caller.signal);
    const reason = new Error('caller gave up');
    caller.abort(reason);
    expect(following.aborted).toBe(true);
    expect(following.reason).toBe(reason);

    const other = new AbortController();
    const released = Cancellation.following(other.signal);
    released.release();
    other.abort(new Error('too late'));
    expect(released.aborted).toBe(false);

    const already = new AbortController();
    already.abort('before');
    expect(Cancellation.following(already.signal).reason).toBe('before');
  });

  it("a child aborts with its parent (the parent's reason) until released, never the other way", () => {
    const parent = Cancellation.create();
    const child = parent.child();
    const free = parent.child();
    free.release();
    child.abort('own timeout');
    expect(parent.aborted).toBe(false);
    const second = parent.child();
    parent.abort('caller');
    expect(second.reason).toBe('caller');
    expect(child.reason).toBe('own timeout');
    expect(free.aborted).toBe(false);
    expect(parent.child().reason).toBe('caller');
  });

  it('never: cannot abort, keeps no listener, and its signal never fires', () => {
    const never = Cancellation.never;
    let called = false;
    never.onAbort(() => {
      called = true;
    });
    never.abort('no');
    expect(never.aborted).toBe(false);
    expect(called).toBe(false);
    expect(never.signal.aborted).toBe(false);
    expect(never.child().abortable).toBe(true);
  });
});
