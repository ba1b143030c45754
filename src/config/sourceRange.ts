import { type Document, isAlias, isMap, isNode, isScalar, isSeq, type Node } from 'yaml';

/** Where a node is in the source text: 0-based character offsets of its start and its end. */
export type SourceRange = readonly [start: number, end: number];

/**
 * The place in the source text that `path` names in a parsed YAML document: the value there, or
 * with `at: 'key'` the key that introduces it. A path that leaves the document (a missing field)
 * gives the nearest mapping or list that does exist, which is where the missing field belongs.
 *
 * @returns the range, or `undefined` for a document without content.
 */
export function sourceRange(
  doc: Document,
  path: readonly PropertyKey[],
  at: 'key' | 'value' = 'value',
): SourceRange | undefined {
  let node: Node | null = isNode(doc.contents) ? doc.contents : null;
  let offset = rangeOf(node);
  for (const [i, segment] of path.entries()) {
    node = resolve(doc, node);
    let keyNode: unknown;
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment));
      if (pair === undefined) return offset;
      keyNode = pair.key;
      next = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      next = node.items[segment];
      if (next === undefined) return offset;
    } else return offset;

    const isLast = i === path.length - 1;
    if (isLast && at === 'key' && isNode(keyNode)) return rangeOf(keyNode) ?? offset;
    // `capacity:` with nothing after it has no value node: point at the key.
    node = isNode(next) ? next : null;
    offset = rangeOf(node) ?? rangeOf(isNode(keyNode) ? keyNode : null) ?? offset;
    if (node === null) return offset;
  }
  return offset;
}

function rangeOf(node: Node | null): SourceRange | undefined {
  const range = node?.range;
  return range === undefined || range === null ? undefined : [range[0], range[1]];
}

/** Follows an alias to its anchored node, so that paths through `*ref` keep descending. */
function resolve(doc: Document, node: Node | null): Node | null {
  if (!isAlias(node)) return node;
  const target = node.resolve(doc);
  return isNode(target) ? target : null;
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === 'string' ? key : undefined;
}
