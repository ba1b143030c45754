import type { BranchesAlongSweep } from '../model/network/branchSweep.js';

/**
 * Where a sweep's two branches end, as `difftry analyze --sweep` and the web UI say it:
 * "bistable: tips above api.users = 69.36; recovers below api.users = 18.96" (a capacity sweep
 * tips below and recovers above); `target` names the swept parameter.
 */
export function branchesText(
  target: string,
  loadRises: boolean,
  branches: BranchesAlongSweep<unknown>,
): string {
  const { tipping, recovery } = branches;
  const [up, down] = loadRises ? ['above', 'below'] : ['below', 'above'];
  const tips = tipping === undefined ? undefined : `tips ${up} ${target} = ${round(tipping)}`;
  const recovers =
    recovery === undefined ? undefined : `recovers ${down} ${target} = ${round(recovery)}`;
  const bistable = branches.points.some((p) => p.healthy !== undefined && p.storm !== undefined);
  if (tips === undefined && recovers === undefined) {
    return bistable
      ? 'bistable over the whole sweep: a healthy state and a storm at every point (neither branch ends inside it)'
      : 'one state at every point of the sweep (no storm branch apart from it)';
  }
  return `${bistable ? 'bistable: ' : ''}${[tips, recovers].filter((x) => x !== undefined).join('; ')}`;
}

/** A parameter value to four significant digits. */
function round(value: number): string {
  return String(Number(value.toPrecision(4)));
}
