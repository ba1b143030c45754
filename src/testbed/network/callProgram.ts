import type { CallSpec, NetworkSpec, ServiceSpec } from '../../config/schema.js';
import type { RandomSource } from '../../model/random.js';

/** One call in a program: `n` calls to `to`, for every class or only `className`. */
export interface ProgramCall {
  readonly to: string;
  readonly n: number;
  readonly className?: string;
}

/**
 * A step of a program: a sequential call (its `n` calls one after another, stopping at the first
 * failure), or a run of adjacent parallel calls issued together (all made even if one fails).
 */
export type ProgramStep =
  | { readonly kind: 'sequential'; readonly call: ProgramCall }
  | { readonly kind: 'parallel'; readonly calls: readonly ProgramCall[] };

/** One endpoint of a service: its name (its path), probability and the steps it adds. */
export interface ProgramBranch {
  readonly name: string;
  readonly p: number;
  readonly steps: readonly ProgramStep[];
}

/**
 * What a service does after its own work, from the network file's `calls` and `branches`: the
 * unconditional steps, then the steps of the request's branch. A request's branch is its
 * endpoint, named in its path (`/search`); the caller draws it, once per call, so the retries of a
 * call repeat the same endpoint as a real client's would.
 */
export interface CallProgram {
  readonly steps: readonly ProgramStep[];
  readonly branches: readonly ProgramBranch[];
}

/** The path of a branch: its name, or `branch-INDEX` when the file gives none. */
export function branchName(branch: { readonly name?: string }, index: number): string {
  return branch.name ?? `branch-${index}`;
}

/** Groups a list of calls into steps: each run of adjacent parallel calls is one step. */
function toSteps(calls: readonly CallSpec[]): ProgramStep[] {
  const steps: ProgramStep[] = [];
  let run: ProgramCall[] | undefined;
  for (const call of calls) {
    const programCall: ProgramCall =
      call.class === undefined
        ? { to: call.to, n: call.n }
        : { to: call.to, n: call.n, className: call.class };
    if (call.mode === 'parallel') {
      if (run === undefined) {
        run = [];
        steps.push({ kind: 'parallel', calls: run });
      }
      run.push(programCall);
    } else {
      run = undefined;
      steps.push({ kind: 'sequential', call: programCall });
    }
  }
  return steps;
}

/** The {@link CallProgram} of a service of a call-graph network file. */
export function callProgram(service: ServiceSpec): CallProgram {
  return {
    steps: toSteps(service.calls ?? []),
    branches: (service.branches ?? []).map((b, i) => ({
      name: branchName(b, i),
      p: b.p,
      steps: toSteps(b.calls),
    })),
  };
}

/** Every service's program, by name. */
export function callPrograms(network: NetworkSpec): ReadonlyMap<string, CallProgram> {
  return new Map(network.services.map((s) => [s.name, callProgram(s)]));
}

/**
 * Draws the endpoint of one call to a service: a branch with its probability, or `/` (no
 * branch) with the probability left over.
 */
export function drawPath(program: CallProgram | undefined, random: RandomSource): string {
  if (program === undefined || program.branches.length === 0) return '/';
  let u = random();
  for (const branch of program.branches) {
    if (u < branch.p) return `/${encodeURIComponent(branch.name)}`;
    u -= branch.p;
  }
  return '/';
}

/** Makes one call: resolves true when it succeeded after its hop's retries. */
export type CallChild = (to: string) => Promise<boolean>;

/**
 * Runs a program for a request of class `className` on endpoint `branch` (undefined: none):
 * steps in order, a sequential step stopping everything at its first failed call, a parallel
 * step waiting for all of its calls. Resolves true when every call made succeeded.
 */
export async function runProgram(
  program: CallProgram,
  className: string,
  branch: string | undefined,
  callChild: CallChild,
): Promise<boolean> {
  if (!(await runSteps(program.steps, className, callChild))) return false;
  if (branch === undefined) return true;
  const chosen = program.branches.find((b) => b.name === branch);
  return chosen === undefined ? true : runSteps(chosen.steps, className, callChild);
}

async function runSteps(
  steps: readonly ProgramStep[],
  className: string,
  callChild: CallChild,
): Promise<boolean> {
  const applies = (call: ProgramCall) =>
    call.className === undefined || call.className === className;
  for (const step of steps) {
    if (step.kind === 'sequential') {
      if (!applies(step.call)) continue;
      for (let m = 0; m < step.call.n; m++) {
        if (!(await callChild(step.call.to))) return false;
      }
      continue;
    }
    const calls = step.calls
      .filter(applies)
      .flatMap((call) => Array.from({ length: call.n }, () => callChild(call.to)));
    const results = await Promise.all(calls);
    if (results.includes(false)) return false;
  }
  return true;
}
