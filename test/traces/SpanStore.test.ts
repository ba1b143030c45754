import { describe, expect, it } from 'vitest';
import { NONE, type SpanReading, SpanStore } from '../../src/traces/SpanStore.js';
import type { TraceSpan } from '../../src/traces/TraceSpan.js';

const READING: SpanReading = {
  className: undefined,
  resendCount: undefined,
  peer: undefined,
  rejected: 'no',
};

function span(traceId: string, spanId: string, parentSpanId?: string): TraceSpan {
  return {
    traceId,
    spanId,
    ...(parentSpanId === undefined ? {} : { parentSpanId }),
    service: 'cart',
    kind: 'server',
    start: 0,
    end: 1,
    attributes: {},
    error: false,
  };
}

describe('SpanStore', () => {
  it('keeps every parent link while its columns grow', () => {
    // Children before their parents, as a collector writes spans (in the order they end), one
    // root first so that a parent's new index is the one that makes the columns grow.
    const store = new SpanStore();
    store.add(span('root', 'r'), READING);
    for (let k = 0; k < 5000; k++) store.add(span(`t${k}`, 'child', 'parent'), READING);
    const lost: number[] = [];
    for (let i = 1; i < store.length; i++) {
      if (store.present[i] === 1 && store.parent[i] === NONE) lost.push(i);
    }
    expect(lost).toEqual([]);
    expect(store.parent[0]).toBe(NONE);
    expect(store.spanCount).toBe(5001);
    expect(store.length).toBe(10_001);
  });
});
