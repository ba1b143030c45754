import type { OptimizedTimeouts, TimeoutNode } from 'difftry/model';

/** One candidate timeout of the Optimizer's search tree, placed for drawing. */
export interface TreeDot {
  /** Stable across redraws: the child indices from the root (`''` for t_z, `0.1` …). */
  readonly id: string;
  /** The candidate timeout (s). */
  readonly t: number;
  /** E from this timeout on, along its path up to t_z (s). */
  readonly E: number;
  /** Timeouts between it and t_z: 0 for t_z, 1 for the candidates of t_(z−1), … */
  readonly level: number;
  /** Whether it is on the optimal path (the ladder). */
  readonly optimal: boolean;
}

/** A parent→child edge of the tree (a later timeout to a candidate earlier one). */
export interface TreeEdge {
  /** The child's id. */
  readonly id: string;
  readonly parent: TreeDot;
  readonly child: TreeDot;
  /** Whether both ends are on the optimal path. */
  readonly optimal: boolean;
}

/**
 * The Optimizer's whole search tree as dots and edges, the optimal path marked: the node at level
 * k is on it when its parent is and its timeout is the ladder's t_(z−k) (the ladder is read off
 * the tree, so the numbers are equal, not close).
 * @example
 * ```ts
 * const { dots, edges } = searchTreeLayout(optimizeTimeouts(law, { depth: 4 }));
 * ```
 */
export function searchTreeLayout(result: OptimizedTimeouts): {
  dots: TreeDot[];
  edges: TreeEdge[];
} {
  const ladder = result.sequence;
  const dots: TreeDot[] = [];
  const edges: TreeEdge[] = [];
  const visit = (node: TimeoutNode, id: string, level: number, parent?: TreeDot) => {
    const optimal =
      (parent === undefined || parent.optimal) && node.t === ladder[ladder.length - 1 - level];
    const dot: TreeDot = { id, t: node.t, E: node.E, level, optimal };
    dots.push(dot);
    if (parent !== undefined) edges.push({ id, parent, child: dot, optimal });
    node.children.forEach((child, index) => {
      visit(child, id === '' ? String(index) : `${id}.${index}`, level + 1, dot);
    });
  };
  visit(result.tree, '', 0);
  return { dots, edges };
}
