import { NONE, type SpanStore } from '../SpanStore.js';

/**
 * The children of every span of a {@link SpanStore} (compressed rows: the children of span `i`
 * are `children[first[i]] … children[first[i + 1] - 1]`, in start order), and each span's class
 * with inheritance: a span that names no class takes its nearest ancestor's.
 */
export class SpanTree {
  readonly first: Int32Array;
  readonly children: Int32Array;
  /** The class id of each span, its own or its nearest ancestor's; {@link NONE} when none has one. */
  readonly classOf: Int16Array;

  /** Each span's parent, as the tree takes it (see {@link effectiveParents}). */
  readonly parent: Int32Array;

  constructor(readonly store: SpanStore) {
    const n = store.length;
    const parent = effectiveParents(store);
    this.parent = parent;
    const counts = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const p = parent[i] as number;
      if (store.present[i] === 1 && p !== NONE) counts[p + 1] = (counts[p + 1] as number) + 1;
    }
    for (let i = 0; i < n; i++) counts[i + 1] = (counts[i + 1] as number) + (counts[i] as number);
    this.first = counts;
    const fill = Int32Array.from(counts.subarray(0, n));
    const children = new Int32Array(counts[n] as number);
    for (let i = 0; i < n; i++) {
      const p = parent[i] as number;
      if (store.present[i] !== 1 || p === NONE) continue;
      children[fill[p] as number] = i;
      fill[p] = (fill[p] as number) + 1;
    }
    for (let i = 0; i < n; i++) {
      const row = children.subarray(counts[i] as number, counts[i + 1] as number);
      if (row.length > 1)
        row.sort((a, b) => (store.start[a] as number) - (store.start[b] as number));
    }
    this.children = children;
    this.classOf = inheritedClasses(store, parent);
  }

  /** The children of span `i`. */
  childrenOf(i: number): Int32Array {
    return this.children.subarray(this.first[i] as number, this.first[i + 1] as number);
  }
}

/**
 * The parents as the tree takes them: a span that names a client span of another service as its
 * parent, and is not itself that call's server span, hangs below the server span the client
 * span has in the span's own service. Zipkin's shared (B3 single-host) spans need it: the server
 * reuses the client's id, so the spans the server starts name the client span as their parent.
 */
function effectiveParents(store: SpanStore): Int32Array {
  const n = store.length;
  const parent = Int32Array.from(store.parent.subarray(0, n));
  // The first server span below each client span (most clients have one; a message fanned out
  // to several receivers has them all in one service). Typed, not a map: millions of spans.
  const server = new Int32Array(n).fill(NONE);
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    if (store.present[i] !== 1 || p === NONE || store.present[p] !== 1) continue;
    const kind = store.kindOf(i);
    if ((kind === 'server' || kind === 'consumer') && store.kindOf(p) === 'client') {
      if (server[p] === NONE) server[p] = i;
    }
  }
  for (let i = 0; i < n; i++) {
    const p = parent[i] as number;
    if (store.present[i] !== 1 || p === NONE || store.present[p] !== 1) continue;
    const kind = store.kindOf(i);
    if (kind === 'server' || kind === 'consumer' || store.service[i] === store.service[p]) continue;
    const below = server[p] as number;
    if (below !== NONE && store.service[below] === store.service[i]) parent[i] = below;
  }
  return parent;
}

/** Each span's class, its own or its nearest ancestor's, without recursion (deep traces). */
function inheritedClasses(store: SpanStore, parent: Int32Array): Int16Array {
  const n = store.length;
  const classOf = new Int16Array(n).fill(-2); // -2: not yet resolved
  const path: number[] = [];
  for (let i = 0; i < n; i++) {
    let j = i;
    while (j !== NONE && classOf[j] === -2) {
      if (store.present[j] === 1 && store.classId[j] !== NONE) {
        classOf[j] = store.classId[j] as number;
        break;
      }
      path.push(j);
      j = store.present[j] === 1 ? (parent[j] as number) : NONE;
      if (path.length > n) break; // a cycle of parent links: malformed data, left unclassed
    }
    const resolved = j === NONE || classOf[j] === -2 ? NONE : (classOf[j] as number);
    for (const k of path) classOf[k] = resolved;
    path.length = 0;
  }
  return classOf;
}
