import type { BranchPoint } from './sweepPrediction.js';

/**
 * A jump of the hysteresis loop: at the tipping load the healthy state ends and the network
 * jumps up to the storm; at the recovery load the storm ends and it falls back to health.
 */
export interface HysteresisJump {
  readonly kind: 'tips' | 'recovers';
  /** The swept value where the branch ends, requests per second. */
  readonly value: number;
  /** The rejection on the branch that ends, and on the one the network lands on. */
  readonly from: number;
  readonly to: number;
}

/**
 * The two jumps of a class's hysteresis loop, from its branch points and where the branches
 * end (`analyzeSweep`'s `tipping` and `recovery`). A branch's rejection at such a load is
 * interpolated between its points around it, or taken from its nearest point where it has none
 * beyond (a branch ends between two points). A jump whose branches are missing is left out.
 */
export function hysteresisJumps(
  points: readonly BranchPoint[],
  ends: { readonly tipping?: number; readonly recovery?: number },
): HysteresisJump[] {
  const jumps: HysteresisJump[] = [];
  const jump = (kind: HysteresisJump['kind'], value: number | undefined) => {
    if (value === undefined) return;
    const healthy = branchAt(points, 'healthy', value);
    const storm = branchAt(points, 'storm', value);
    if (healthy === undefined || storm === undefined) return;
    jumps.push(
      kind === 'tips'
        ? { kind, value, from: healthy, to: storm }
        : { kind, value, from: storm, to: healthy },
    );
  };
  jump('tips', ends.tipping);
  jump('recovers', ends.recovery);
  return jumps;
}

/** A branch's rejection at `value`: interpolated, or its nearest point's outside its points. */
function branchAt(
  points: readonly BranchPoint[],
  branch: 'healthy' | 'storm',
  value: number,
): number | undefined {
  const on = points.flatMap((p) => {
    const y = p[branch];
    return y === undefined ? [] : [{ x: p.value, y }];
  });
  const first = on[0];
  const last = on[on.length - 1];
  if (first === undefined || last === undefined) return undefined;
  if (value <= first.x) return first.y;
  if (value >= last.x) return last.y;
  const after = on.findIndex((p) => p.x >= value);
  const right = on[after] as { x: number; y: number };
  const left = on[after - 1] as { x: number; y: number };
  return left.y + ((right.y - left.y) * (value - left.x)) / (right.x - left.x);
}
