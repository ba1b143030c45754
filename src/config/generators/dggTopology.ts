import type { RandomSource } from '../../model/random.js';

/** The longest call path of a DGG-like graph, in edges from the entry. */
export const DGG_MAX_DEPTH = 5;
/** The most services one service of a DGG-like graph calls. */
export const DGG_MAX_FAN_OUT = 5;
/** Probability that a service gets a second caller, making the graph a DAG rather than a tree. */
const SHARED_PROBABILITY = 0.25;

/**
 * The children of each service of a small DGG-like call graph of `services` services, entry 0.
 * Each service after the entry is called by one earlier service chosen uniformly among those
 * less than {@link DGG_MAX_DEPTH} deep with fewer than {@link DGG_MAX_FAN_OUT} callees; then, with
 * probability 0.25, by a second one that is strictly shallower (a service shared by two call
 * paths). Every edge goes from a shallower service to a deeper one, so the graph is a DAG and
 * each service's depth is its longest path from the entry: at most 5.
 */
export function dggTopology(services: number, random: RandomSource): number[][] {
  const children: number[][] = [[]];
  const depth = [0];
  const pick = (candidates: number[]): number | undefined =>
    candidates[Math.floor(random() * candidates.length)];
  const hasRoom = (i: number) => (children[i]?.length ?? 0) < DGG_MAX_FAN_OUT;

  for (let service = 1; service < services; service++) {
    const callers = depth.flatMap((d, i) => (d < DGG_MAX_DEPTH && hasRoom(i) ? [i] : []));
    // With at most 7 services some caller always has room (the entry has 5 slots).
    const caller = pick(callers) ?? 0;
    children[caller]?.push(service);
    children.push([]);
    depth.push((depth[caller] ?? 0) + 1);
  }

  for (let service = 1; service < services; service++) {
    if (random() >= SHARED_PROBABILITY) continue;
    const ownDepth = depth[service] ?? 0;
    const callers = depth.flatMap((d, i) =>
      d < ownDepth && hasRoom(i) && !children[i]?.includes(service) ? [i] : [],
    );
    const caller = pick(callers);
    if (caller !== undefined) children[caller]?.push(service);
  }
  return children;
}
