import { join } from 'node:path';
import { parseNetwork } from '../../config/parseNetwork.js';
import type { NetworkSpec } from '../../config/schema.js';
import { toNetworkModel } from '../../config/toNetworkModel.js';
import { analyzeNetwork } from '../../model/network/analyzeNetwork.js';
import { measureTestbed } from '../../testbed/experiment/measureTestbed.js';
import { predictTestbed } from '../../testbed/experiment/predictTestbed.js';
import { TESTBED_BACKOFF, TESTBED_RUN_SETTINGS } from '../../testbed/experiment/runValidity.js';
import { TESTBED_TRACE_FILES } from '../../testbed/network/startTestbed.js';
import { type InferredNetwork, inferNetwork } from '../../traces/infer/inferNetwork.js';
import { storeTraceFiles } from '../../traces/storeTraceFiles.js';

/** One load of the closed loop: what the testbed measured, and what its traces gave back. */
export interface LoopPoint {
  /** The file's arrival rates times this. */
  readonly load: number;
  readonly classes: readonly {
    readonly name: string;
    /** End-to-end rejection the testbed measured (requests sent in the window), ± 95 %. */
    readonly measured: number;
    readonly measuredCi95: number;
    /** The analysis of the network inferred from the traces. */
    readonly inferred: number;
    /** The analysis of the file that ran, with the testbed's calibrated capacities (its own). */
    readonly predicted: number;
  }[];
  /** Per entry and class: the rate the load sent in the window, the inferred one. */
  readonly arrivals: readonly {
    readonly entry: string;
    readonly className: string;
    readonly sent: number;
    readonly inferred: number;
  }[];
  /** Per service: the calibrated capacity (jobs per busy second), the inferred one, its spans. */
  readonly capacities: readonly {
    readonly service: string;
    readonly calibrated: number;
    readonly inferred: number;
    readonly spans: number;
  }[];
  /** The call sets of each service, file and inferred (`a+b` → share), and their largest gap. */
  readonly callGraph: {
    readonly sameEdges: boolean;
    readonly missing: readonly string[];
    readonly extra: readonly string[];
    /** Largest difference of a call set's share between the file and the traces. */
    readonly largestShareGap: number;
  };
  readonly spans: number;
  readonly inferredNetwork: InferredNetwork;
}

/** Options of {@link closedLoopPoint}. */
export interface ClosedLoopOptions {
  readonly seed: number;
  readonly warmupS: number;
  readonly durationS: number;
  /** A folder for the run's trace files. */
  readonly traces: string;
  readonly onProgress?: (fraction: number) => void;
}

/**
 * The loop closed once (docs/traces.md, "The loop closed"): runs `network` on the live testbed at
 * `load` times its arrival rates, with in-process retries (the runtime's `retry()`), every
 * request traced through the runtime's OpenTelemetry output; infers a network from the traces
 * (`inferNetwork`, with the file's class order and queue m, which traces cannot show); and sets
 * the analysis of the inferred network beside the testbed's measured rejection.
 */
export async function closedLoopPoint(
  network: NetworkSpec,
  load: number,
  options: ClosedLoopOptions,
): Promise<LoopPoint> {
  const scaled: NetworkSpec = {
    ...network,
    services: network.services.map((s) => ({
      ...s,
      arrivals: Object.fromEntries(Object.entries(s.arrivals).map(([c, r]) => [c, r * load])),
    })),
  };
  const measurement = await measureTestbed(scaled, {
    // As `difftry testbed run`: half the file's rates and capacities, its retry delay.
    scale: TESTBED_RUN_SETTINGS.scale,
    backoff: TESTBED_BACKOFF,
    sidecars: false,
    seed: options.seed,
    warmupS: options.warmupS,
    durationS: options.durationS,
    traces: options.traces,
    ...(options.onProgress !== undefined && { onProgress: options.onProgress }),
  });
  const store = await storeTraceFiles(
    Object.values(TESTBED_TRACE_FILES).map((file) => join(options.traces, file)),
  );
  const queues = new Set(network.services.map((s) => s.queue));
  const inferred = inferNetwork(store, {
    classes: network.classes.map((c) => c.name),
    ...(queues.size === 1 && { queue: [...queues][0] as number }),
    name: `${network.name ?? 'network'} from its traces`,
  });
  const analysis = analyzeNetwork(
    toNetworkModel(parseNetwork(JSON.stringify(inferred.network), 'the inferred network')),
  );
  // The testbed's own prediction: the file that ran, its calibrated capacities and sent rates.
  const predicted = predictTestbed(measurement).calls.endToEnd;
  return {
    load,
    classes: measurement.classes.map((c) => ({
      name: c.name,
      measured: c.rejection,
      measuredCi95: c.rejectionCi95,
      inferred: analysis.endToEnd[c.name]?.rejection ?? Number.NaN,
      predicted: predicted[c.name]?.rejection ?? Number.NaN,
    })),
    arrivals: measurement.streams.map((stream) => ({
      entry: stream.entry,
      className: stream.className,
      sent: stream.windowRate,
      inferred:
        inferred.evidence.services.find((s) => s.name === stream.entry)?.arrivals[
          stream.className
        ] ?? 0,
    })),
    capacities: measurement.services.map((s) => {
      const found = inferred.evidence.services.find((e) => e.name === s.name)?.capacity;
      return {
        service: s.name,
        calibrated: s.calibratedCapacity,
        inferred: found?.value ?? Number.NaN,
        spans: found?.spans ?? 0,
      };
    }),
    callGraph: compareCallSets(measurement.network, inferred),
    spans: inferred.evidence.spans,
    inferredNetwork: inferred,
  };
}

type CallSets = Map<string, Map<string, number>>;

/** Each service's call sets (`a+b`, callees sorted) with their shares of its requests. */
function callSetsOf(
  services: readonly {
    readonly name: string;
    readonly calls?: readonly { readonly to: string }[];
    readonly branches?: readonly {
      readonly p: number;
      readonly calls: readonly { readonly to: string }[];
    }[];
  }[],
): CallSets {
  const sets: CallSets = new Map();
  for (const s of services) {
    const common = (s.calls ?? []).map((c) => c.to);
    const shares = new Map<string, number>();
    const branches = s.branches ?? [];
    let rest = 1;
    for (const branch of branches) {
      const key = [...common, ...branch.calls.map((c) => c.to)].sort().join('+');
      shares.set(key, (shares.get(key) ?? 0) + branch.p);
      rest -= branch.p;
    }
    if (rest > 1e-9 && (common.length > 0 || branches.length > 0)) {
      const key = [...common].sort().join('+');
      shares.set(key, (shares.get(key) ?? 0) + rest);
    }
    if (shares.size > 0) sets.set(s.name, shares);
  }
  return sets;
}

function compareCallSets(ran: NetworkSpec, inferred: InferredNetwork): LoopPoint['callGraph'] {
  const file = callSetsOf(ran.services);
  const traced = callSetsOf(inferred.network.services as Parameters<typeof callSetsOf>[0]);
  const edges = (sets: CallSets) =>
    new Set(
      [...sets].flatMap(([caller, shares]) =>
        [...shares.keys()].flatMap((key) =>
          key === '' ? [] : key.split('+').map((callee) => `${caller} → ${callee}`),
        ),
      ),
    );
  const fileEdges = edges(file);
  const tracedEdges = edges(traced);
  let largestShareGap = 0;
  for (const caller of new Set([...file.keys(), ...traced.keys()])) {
    const a = file.get(caller) ?? new Map<string, number>();
    const b = traced.get(caller) ?? new Map<string, number>();
    for (const key of new Set([...a.keys(), ...b.keys()])) {
      largestShareGap = Math.max(largestShareGap, Math.abs((a.get(key) ?? 0) - (b.get(key) ?? 0)));
    }
  }
  const missing = [...fileEdges].filter((e) => !tracedEdges.has(e));
  const extra = [...tracedEdges].filter((e) => !fileEdges.has(e));
  return { sameEdges: missing.length === 0 && extra.length === 0, missing, extra, largestShareGap };
}
