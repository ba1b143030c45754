import type { NetworkCall, NetworkModel } from '../../model/network/NetworkModel.js';

/**
 * The call programs of a call-graph network, flattened into typed arrays for the simulator.
 *
 * A *sequence* is a run of *steps*; a step is either one sequential call (to `callTarget`, made
 * `callCount` times one after another) or a group of adjacent parallel calls issued together.
 * Per cell (`service * classCount + class`): the main sequence (the service's calls for that
 * class) and the branches (cumulative probability and sequence of each).
 */
export interface CallPrograms {
  /** Per cell: the index of its main sequence. */
  readonly mainSequence: Int32Array;
  /** Per cell: its branches, a range of `branchCumulative` / `branchSequence`. */
  readonly branchStart: Int32Array;
  readonly branchEnd: Int32Array;
  readonly branchCumulative: Float64Array;
  readonly branchSequence: Int32Array;
  /** Per sequence: its steps, a range of the step arrays. */
  readonly sequenceStart: Int32Array;
  readonly sequenceEnd: Int32Array;
  /** Per step: its calls, a range of `callTarget` / `callCount`; 1 when parallel. */
  readonly stepStart: Int32Array;
  readonly stepEnd: Int32Array;
  readonly stepParallel: Uint8Array;
  /** Per step: Σ n over its calls (the calls a parallel group waits for). */
  readonly stepTotal: Int32Array;
  readonly callTarget: Int32Array;
  readonly callCount: Int32Array;
}

/**
 * Flattens the `calls` and `branches` of every service, per class, of a network that passed
 * `checkNetworkModel` (targets, counts, probabilities and the DAG are checked there).
 */
export function callPrograms(network: NetworkModel): CallPrograms {
  const services = network.services;
  const serviceCount = services.length;
  const classCount = network.classes.length;
  const cells = serviceCount * classCount;
  const mainSequence = new Int32Array(cells);
  const branchStart = new Int32Array(cells);
  const branchEnd = new Int32Array(cells);
  const branchCumulative: number[] = [];
  const branchSequence: number[] = [];
  const sequenceStart: number[] = [];
  const sequenceEnd: number[] = [];
  const stepStart: number[] = [];
  const stepEnd: number[] = [];
  const stepParallel: number[] = [];
  const stepTotal: number[] = [];
  const callTarget: number[] = [];
  const callCount: number[] = [];

  const addSequence = (calls: readonly NetworkCall[]): number => {
    sequenceStart.push(stepStart.length);
    let i = 0;
    while (i < calls.length) {
      const parallel = (calls[i] as NetworkCall).parallel === true;
      stepStart.push(callTarget.length);
      let total = 0;
      do {
        const call = calls[i] as NetworkCall;
        callTarget.push(call.to);
        callCount.push(call.n);
        total += call.n;
        i++;
      } while (parallel && i < calls.length && (calls[i] as NetworkCall).parallel === true);
      stepEnd.push(callTarget.length);
      stepParallel.push(parallel ? 1 : 0);
      stepTotal.push(total);
    }
    sequenceEnd.push(stepStart.length);
    return sequenceStart.length - 1;
  };

  services.forEach((service, i) => {
    for (let p = 0; p < classCount; p++) {
      const forClass = (calls: readonly NetworkCall[]) =>
        calls.filter((c) => c.classIndex === undefined || c.classIndex === p);
      const cell = i * classCount + p;
      mainSequence[cell] = addSequence(forClass(service.calls ?? []));
      branchStart[cell] = branchSequence.length;
      let total = 0;
      (service.branches ?? []).forEach((branch) => {
        total += branch.p;
        branchCumulative.push(total);
        branchSequence.push(addSequence(forClass(branch.calls)));
      });
      branchEnd[cell] = branchSequence.length;
    }
  });

  return {
    mainSequence,
    branchStart,
    branchEnd,
    branchCumulative: new Float64Array(branchCumulative),
    branchSequence: new Int32Array(branchSequence),
    sequenceStart: new Int32Array(sequenceStart),
    sequenceEnd: new Int32Array(sequenceEnd),
    stepStart: new Int32Array(stepStart),
    stepEnd: new Int32Array(stepEnd),
    stepParallel: new Uint8Array(stepParallel),
    stepTotal: new Int32Array(stepTotal),
    callTarget: new Int32Array(callTarget),
    callCount: new Int32Array(callCount),
  };
}
