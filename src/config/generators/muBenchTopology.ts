import type { RandomSource } from '../../model/random.js';
import { preferentialTree } from './preferentialTree.js';

/** The shape of a µBench-like network, before edges get weights. */
export interface MuBenchTopology {
  /** `frontend`, `svc1` …, then `db1` …. */
  readonly names: readonly string[];
  /** Children of each service: tree children first, then the databases it calls. */
  readonly children: readonly (readonly number[])[];
  /** Tree parent of each service (−1 for the entry and the databases). */
  readonly parents: readonly number[];
  /** Number of tree services, indices 0 … treeSize − 1; the databases follow. */
  readonly treeSize: number;
}

/** Share of the services that are databases. */
const DATABASE_SHARE = 0.1;

/**
 * Number of shared databases among `services`: about 10 %, at least 1, leaving at least
 * `minTreeServices` in the tree (so 0 for a lone frontend).
 */
export function databaseCount(services: number, minTreeServices: number): number {
  const wanted = Math.max(1, Math.round(services * DATABASE_SHARE));
  return Math.max(0, Math.min(wanted, services - minTreeServices));
}

/**
 * A µBench-like service DAG: a preferential-attachment tree of `services − databases` services
 * rooted at the entry (`frontend`), plus `databases` shared leaves (`db1` …), each called by 2 to
 * 4 distinct tree services other than the entry (fewer when the tree is smaller). Every edge goes
 * from a lower index to a higher one, so index order is topological.
 */
export function muBenchTopology(
  services: number,
  databases: number,
  random: RandomSource,
): MuBenchTopology {
  const treeSize = services - databases;
  const treeParents = preferentialTree(treeSize, random);
  const children: number[][] = Array.from({ length: services }, () => []);
  treeParents.forEach((parent, node) => {
    if (parent >= 0) children[parent]?.push(node);
  });

  // Databases hang below the business services; the entry calls one only when it is alone.
  const firstCaller = treeSize >= 3 ? 1 : 0;
  const candidates = treeSize - firstCaller;
  for (let db = treeSize; db < services; db++) {
    const callerCount = Math.min(candidates, 2 + Math.floor(random() * 3));
    const callers = new Set<number>();
    while (callers.size < callerCount) {
      callers.add(firstCaller + Math.floor(random() * candidates));
    }
    for (const caller of [...callers].sort((a, b) => a - b)) children[caller]?.push(db);
  }

  const names = Array.from({ length: services }, (_, i) =>
    i === 0 ? 'frontend' : i < treeSize ? `svc${i}` : `db${i - treeSize + 1}`,
  );
  const parents = [...treeParents, ...new Array<number>(databases).fill(-1)];
  return { names, children, parents, treeSize };
}
