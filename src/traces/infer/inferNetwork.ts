import { classKey, TOKEN } from '../../config/edgeSchema.js';
import { MAX_RETRIES, type NetworkSpecInput } from '../../config/schema.js';
import { NONE, REJECTED_CODE, type SpanStore } from '../SpanStore.js';
import { TraceFileError } from '../TraceFileError.js';
import { acyclicEdges } from './acyclicEdges.js';
import { BusyTime } from './BusyTime.js';
import { CallShapeTally, type InferredCall, type InferredCallShape } from './CallShapeTally.js';
import { requestCalls } from './requestCalls.js';
import { SpanTree } from './SpanTree.js';
import type { HopEvidence, ServiceEvidence, TraceEvidence } from './TraceEvidence.js';

/** m where `--queue` does not say: every service's queue. */
export const DEFAULT_QUEUE = 50;
/**
 * A service whose spans take no time in the window (spans of no length, a messaging receiver)
 * gets this many times its load as its capacity: a guess, said in the header.
 */
export const UNMEASURED_HEADROOM = 100;
/** The class of requests that carry none. */
export const DEFAULT_CLASS = 'default';

/** One end of the window: seconds since the Unix epoch, or since the first span's start. */
export interface WindowBound {
  readonly seconds: number;
  readonly relative: boolean;
}

/** Options of {@link inferNetwork}. */
export interface InferOptions {
  /** The window the rates are measured over; default from the first entry request to the last. */
  readonly window?: { readonly from?: WindowBound; readonly to?: WindowBound };
  /** μ per service, overriding the estimate. */
  readonly capacities?: Readonly<Record<string, number>>;
  /** m for every service (default {@link DEFAULT_QUEUE}). */
  readonly queue?: number;
  /** The classes in priority order, highest first; default: as first seen in the data. */
  readonly classes?: readonly string[];
  /** The file's `name`. */
  readonly name?: string;
}

/** A network file inferred from traces, and what it rests on. */
export interface InferredNetwork {
  readonly network: NetworkSpecInput;
  readonly evidence: TraceEvidence;
}

/** What the attempts into one service of one class showed. */
interface HopTally {
  calls: number;
  attempts: number;
  /** The most retries of one call. */
  most: number;
  /** Attempts that failed (retried, or the last of a failed call). */
  failures: number;
}

interface ServiceTally {
  requests: number;
  rejected: number;
  completed: number;
  entryByClass: Map<number, number>;
  busy: BusyTime;
  /** Attempts into the service from callers (for services with no spans of their own). */
  calledBusy: BusyTime;
  calledAttempts: number;
  shape: CallShapeTally;
  unresolved: number;
}

/**
 * A network file (call-graph form) from the spans in `store`: its services, each entry's
 * external rates per class, each service's calls (`calls` and `branches`, from the call sets of
 * its requests), capacities by the utilization law (see {@link BusyTime}), and the retries seen
 * on each hop as the retry limits. Requests are server spans; an entry request is one with no
 * server span above it. See docs/traces.md for each rule.
 *
 * @throws {TraceFileError} when the data cannot give a network: no server spans, no entry request
 * in the window, a window too short, class values a network file cannot name.
 */
export function inferNetwork(store: SpanStore, options: InferOptions = {}): InferredNetwork {
  const tree = new SpanTree(store);
  const n = store.length;
  const requests: number[] = [];
  const entry = new Uint8Array(n);
  const serverAbove = serverAncestors(store, tree.parent);
  let firstStart = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    if (store.present[i] !== 1) continue;
    firstStart = Math.min(firstStart, store.start[i] as number);
    const kind = store.kindOf(i);
    if (kind !== 'server' && kind !== 'consumer') continue;
    requests.push(i);
    if (serverAbove[i] === 0) entry[i] = 1;
  }
  if (requests.length === 0) {
    throw new TraceFileError(
      'no server spans: the traces record no requests a service served (span kind SERVER)',
    );
  }
  const window = resolveWindow(store, requests, entry, firstStart, options.window);
  const inWindow = (i: number) =>
    (store.start[i] as number) >= window.from && (store.start[i] as number) <= window.to;
  const windowed = requests.filter(inWindow);
  const entries = windowed.filter((i) => entry[i] === 1);
  if (entries.length === 0) {
    throw new TraceFileError(
      `no entry request in the window ${isoSeconds(window.from)} – ${isoSeconds(window.to)}`,
    );
  }

  // Pass 1: the call edges, to keep the graph acyclic.
  const edgeCalls = new Map<string, number>();
  for (const request of windowed) {
    const caller = store.service[request] as number;
    for (const call of requestCalls(tree, request).calls) {
      const key = `${caller}>${call.callee}`;
      edgeCalls.set(key, (edgeCalls.get(key) ?? 0) + 1);
    }
  }
  const { dropped } = acyclicEdges(edgeCalls);
  const droppedKeys = new Set(dropped.map((edge) => `${edge.caller}>${edge.callee}`));

  // Classes: merged by their key (a class header is read in any case).
  const classIndex = new Map<string, number>();
  const classNames: string[] = [];
  const classOfId = new Map<number, number>();
  for (const name of options.classes ?? []) addClass(name);
  function addClass(name: string): number {
    const key = classKey(name);
    const known = classIndex.get(key);
    if (known !== undefined) return known;
    if (!TOKEN.test(name)) {
      throw new TraceFileError(
        `the class "${name}" cannot name a class: expected an HTTP token (letters, digits and !#$%&'*+-.^_\`|~)`,
      );
    }
    classIndex.set(key, classNames.length);
    classNames.push(name);
    return classNames.length - 1;
  }
  let unclassed = 0;
  const classOf = (span: number): number => {
    const id = tree.classOf[span] as number;
    if (id === NONE) {
      unclassed++;
      return addClass(DEFAULT_CLASS);
    }
    const known = classOfId.get(id);
    if (known !== undefined) return known;
    const name = store.classes[id] as string;
    if (options.classes !== undefined && !classIndex.has(classKey(name))) {
      throw new TraceFileError(
        `the traces carry the class "${name}", which --classes does not list (${options.classes.join(', ')})`,
      );
    }
    const index = addClass(name);
    classOfId.set(id, index);
    return index;
  };

  // Pass 2: the tallies.
  const tallies = new Map<number, ServiceTally>();
  const tallyOf = (service: number): ServiceTally => {
    let tally = tallies.get(service);
    if (tally === undefined) {
      tally = {
        requests: 0,
        rejected: 0,
        completed: 0,
        entryByClass: new Map(),
        busy: new BusyTime(),
        calledBusy: new BusyTime(),
        calledAttempts: 0,
        shape: new CallShapeTally(),
        unresolved: 0,
      };
      tallies.set(service, tally);
    }
    return tally;
  };
  const hops = new Map<string, HopTally>();
  const name = (service: number) => store.services[service] as string;
  for (const request of windowed) {
    const service = store.service[request] as number;
    const tally = tallyOf(service);
    const p = classOf(request);
    tally.requests++;
    if (entry[request] === 1) {
      // An external client's retry (its attempt span says resend_count ≥ 1) is no new arrival,
      // but it is the entry hop's retry.
      const attempt = tree.parent[request] as number;
      const fromClient = store.has(attempt) && store.kindOf(attempt) === 'client';
      const resend = fromClient ? (store.resend[attempt] as number) : NONE;
      if (resend < 1) tally.entryByClass.set(p, (tally.entryByClass.get(p) ?? 0) + 1);
      if (fromClient) {
        const key = `${service}|${p}`;
        const hop = hops.get(key) ?? { calls: 0, attempts: 0, most: 0, failures: 0 };
        if (resend < 1) hop.calls++;
        hop.attempts++;
        hop.most = Math.max(hop.most, resend);
        // A retry, or an attempt the entry turned away or failed: something the limit acts on.
        if (resend >= 1 || store.error[request] === 1) hop.failures++;
        hops.set(key, hop);
      }
    }
    const { calls, unresolved } = requestCalls(tree, request);
    const rejectedCode = store.rejected[request] as number;
    if (
      rejectedCode === REJECTED_CODE.yes ||
      (rejectedCode === REJECTED_CODE['by-status'] && calls.length === 0 && unresolved === 0)
    ) {
      tally.rejected++;
      continue;
    }
    tally.completed++;
    const kept = calls.filter((call) => !droppedKeys.has(`${service}>${call.callee}`));
    tally.unresolved += unresolved;
    tally.shape.add(kept, name);
    // Outside its calls: from a call's first attempt to its last, the waits between them
    // included (a request waiting to retry holds no server), and calls left out too.
    tally.busy.addExcluding(
      store.start[request] as number,
      store.end[request] as number,
      calls.map((call) => [call.start, call.end] as const),
    );
    for (const call of kept) {
      const callee = tallyOf(call.callee);
      callee.calledAttempts += call.attempts;
      for (const [a, b] of call.attemptSpans) callee.calledBusy.add(a, b);
      const key = `${call.callee}|${p}`;
      const hop = hops.get(key) ?? { calls: 0, attempts: 0, most: 0, failures: 0 };
      hop.calls++;
      hop.attempts += call.attempts;
      hop.most = Math.max(hop.most, call.attempts - 1);
      hop.failures += call.attempts - 1 + (call.failed ? 1 : 0);
      hops.set(key, hop);
    }
  }

  const seconds = window.to - window.from;
  // External requests: entry server spans that are no client's retry.
  let arrivalsTotal = 0;
  for (const tally of tallies.values()) {
    for (const count of tally.entryByClass.values()) arrivalsTotal += count;
  }
  // Each service's call shape, made once: the order and the file both read it.
  const shapes = new Map([...tallies].map(([service, tally]) => [service, tally.shape.shape()]));
  const order = serviceOrder(tallies, shapes, name);
  const hopEvidence: HopEvidence[] = [...hops]
    .map(([key, hop]) => {
      const [callee, p] = key.split('|').map(Number) as [number, number];
      return {
        callee: name(callee),
        className: classNames[p] as string,
        calls: hop.calls,
        attempts: hop.attempts,
        failedAttempts: hop.failures,
        maxRetries: Math.min(hop.most, MAX_RETRIES),
      };
    })
    .sort((a, b) => (a.callee < b.callee ? -1 : a.callee > b.callee ? 1 : 0));
  // A hop none of whose attempts failed shows nothing of its limit: only the others count.
  const shown = hopEvidence.filter((h) => h.failedAttempts > 0);
  const classRetries = classNames.map((className) =>
    Math.max(0, ...shown.filter((h) => h.className === className).map((h) => h.maxRetries)),
  );
  const queue = options.queue ?? DEFAULT_QUEUE;
  const services: ServiceEvidence[] = [];
  const specServices: NetworkSpecInput['services'] = order.map((service) => {
    const tally = tallies.get(service) as ServiceTally;
    const serviceName = name(service);
    const arrivals: Record<string, number> = {};
    for (const [p, count] of [...tally.entryByClass].sort(([a], [b]) => a - b)) {
      arrivals[classNames[p] as string] = rate(count, arrivalsTotal, seconds, window.chosen);
    }
    const capacity = estimateCapacity(tally, seconds, window, options.capacities?.[serviceName]);
    const shape = shapes.get(service) as InferredCallShape;
    services.push({
      name: serviceName,
      entry: tally.entryByClass.size > 0,
      requests: tally.requests,
      rejected: tally.rejected,
      arrivals,
      capacity,
      callSets: shape.callSets,
      leftOutShare: shape.leftOutShare,
      unresolvedCalls: tally.unresolved,
    });
    const retries: Record<string, number> = {};
    for (const hop of shown) {
      const p = classIndex.get(classKey(hop.className)) as number;
      if (hop.callee === serviceName && hop.maxRetries !== classRetries[p]) {
        retries[hop.className] = hop.maxRetries;
      }
    }
    const toCalls = (calls: readonly InferredCall[]) =>
      calls.map((call) => ({
        to: call.to,
        ...(call.n === 1 ? {} : { n: call.n }),
        ...(call.mode === 'parallel' ? { mode: call.mode } : {}),
      }));
    return {
      name: serviceName,
      capacity: round(capacity.value),
      queue,
      ...(Object.keys(arrivals).length > 0 ? { arrivals } : {}),
      ...(Object.keys(retries).length > 0 ? { retries } : {}),
      ...(shape.calls.length > 0 ? { calls: toCalls(shape.calls) } : {}),
      ...(shape.branches.length > 0
        ? {
            branches: shape.branches.map((branch) => ({
              p: roundDown(branch.p),
              calls: toCalls(branch.calls),
            })),
          }
        : {}),
    };
  });
  for (const given of Object.keys(options.capacities ?? {})) {
    if (!order.some((service) => name(service) === given)) {
      throw new TraceFileError(
        `--capacity names "${given}", which the traces do not show as a service (services: ${order.map(name).join(', ')})`,
      );
    }
  }
  const network: NetworkSpecInput = {
    ...(options.name === undefined ? {} : { name: options.name }),
    classes: classNames.map((className, p) => ({ name: className, retries: classRetries[p] ?? 0 })),
    services: specServices,
  };
  return {
    network,
    evidence: {
      spans: store.spanCount,
      duplicateSpans: store.duplicates,
      window: { from: window.from, to: window.to, seconds, chosen: window.chosen },
      entryRequests: arrivalsTotal,
      services,
      hops: hopEvidence,
      droppedEdges: dropped.map((edge) => ({
        caller: name(edge.caller),
        callee: name(edge.callee),
        calls: edge.calls,
      })),
      defaultClass: DEFAULT_CLASS,
      unclassedRequests: unclassed,
      queue: { value: queue, given: options.queue !== undefined },
    },
  };
}

/** Rates, capacities and shares as the file writes them: four significant digits. */
function round(value: number): number {
  return Number(value.toPrecision(4));
}

/** A share as the file writes it: down to 1e-6, so that a service's branches never sum past 1. */
function roundDown(share: number): number {
  return Math.floor(share * 1e6) / 1e6;
}

/**
 * A class's requests per second over the window: where the window runs from the first entry
 * request to the last, both ends are arrivals, so the `entries` requests span `entries` − 1 gaps
 * and the class has its share of them.
 */
function rate(
  count: number,
  entries: number,
  seconds: number,
  chosen: 'given' | 'entry requests',
): number {
  return round((chosen === 'given' ? count : (count * (entries - 1)) / entries) / seconds);
}

function estimateCapacity(
  tally: ServiceTally,
  seconds: number,
  window: { from: number; to: number },
  given: number | undefined,
): ServiceEvidence['capacity'] {
  const own = tally.completed > 0;
  const busy = own ? tally.busy : tally.calledBusy;
  const done = own ? tally.completed : tally.calledAttempts;
  const busyShare = busy.within(window.from, window.to) / seconds;
  const throughput = done / seconds;
  if (given !== undefined) {
    return { value: given, method: 'given', spans: 0, relativeCi95: 0, busyShare, throughput };
  }
  if (!(busyShare > 0) || done === 0) {
    // Nothing to measure (spans of no length, or none ending in the window): far above its load.
    return {
      value: UNMEASURED_HEADROOM * Math.max(throughput, 1 / seconds),
      method: 'guess',
      spans: done,
      relativeCi95: Number.POSITIVE_INFINITY,
      busyShare,
      throughput,
    };
  }
  return {
    value: throughput / Math.min(busyShare, 1),
    method: own ? 'utilization' : 'client-spans',
    spans: done,
    relativeCi95: 1.96 / Math.sqrt(done),
    busyShare,
    throughput,
  };
}

/** For each span, 1 when a server (or consumer) span is above it in its trace. */
function serverAncestors(store: SpanStore, parent: Int32Array): Uint8Array {
  const n = store.length;
  const above = new Int8Array(n).fill(-1);
  const path: number[] = [];
  for (let i = 0; i < n; i++) {
    let j = store.present[i] === 1 ? (parent[i] as number) : NONE;
    path.push(i);
    let found = 0;
    while (j !== NONE && store.present[j] === 1) {
      if (above[j] !== -1) {
        const kind = store.kindOf(j);
        found = kind === 'server' || kind === 'consumer' ? 1 : (above[j] as number);
        break;
      }
      const kind = store.kindOf(j);
      if (kind === 'server' || kind === 'consumer') {
        found = 1;
        break;
      }
      path.push(j);
      j = parent[j] as number;
      if (path.length > n) break;
    }
    for (const k of path) above[k] = found;
    path.length = 0;
  }
  return Uint8Array.from(above, (v) => (v === 1 ? 1 : 0));
}

function resolveWindow(
  store: SpanStore,
  requests: readonly number[],
  entry: Uint8Array,
  firstStart: number,
  given: InferOptions['window'],
): { from: number; to: number; chosen: 'given' | 'entry requests' } {
  const at = (bound: WindowBound) => (bound.relative ? firstStart + bound.seconds : bound.seconds);
  if (given?.from !== undefined || given?.to !== undefined) {
    const from = given.from === undefined ? firstStart : at(given.from);
    const to = given.to === undefined ? latestStart(store, requests) : at(given.to);
    if (!(to > from)) {
      throw new TraceFileError(
        `the window ${isoSeconds(from)} – ${isoSeconds(to)} is empty: expected FROM before TO`,
      );
    }
    return { from, to, chosen: 'given' };
  }
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  let count = 0;
  for (const i of requests) {
    if (entry[i] !== 1) continue;
    count++;
    from = Math.min(from, store.start[i] as number);
    to = Math.max(to, store.start[i] as number);
  }
  if (count === 0) {
    throw new TraceFileError(
      'no entry service: every server span has a server span above it (a cycle of parent links?)',
    );
  }
  if (!(to > from)) {
    throw new TraceFileError(
      `${count === 1 ? 'one entry request' : `${count} entry requests at one instant`}: no time to measure a rate over; give --window FROM:TO`,
    );
  }
  return { from, to, chosen: 'entry requests' };
}

/** The latest start of these spans (a loop: millions of them overflow a spread's arguments). */
function latestStart(store: SpanStore, spans: readonly number[]): number {
  let latest = Number.NEGATIVE_INFINITY;
  for (const i of spans) latest = Math.max(latest, store.start[i] as number);
  return latest;
}

/** Entries first (by name), then every other service in the order the calls reach them. */
function serviceOrder(
  tallies: ReadonlyMap<number, ServiceTally>,
  shapes: ReadonlyMap<number, InferredCallShape>,
  name: (service: number) => string,
): number[] {
  const byName = (a: number, b: number) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
  const all = [...tallies.keys()].sort(byName);
  const order = all.filter((s) => (tallies.get(s) as ServiceTally).entryByClass.size > 0);
  const seen = new Set(order);
  for (let k = 0; k < order.length; k++) {
    const shape = shapes.get(order[k] as number) as InferredCallShape;
    const callees = [...shape.calls, ...shape.branches.flatMap((b) => b.calls)].map((c) => c.to);
    for (const callee of all.filter((s) => callees.includes(name(s)))) {
      if (!seen.has(callee)) {
        seen.add(callee);
        order.push(callee);
      }
    }
  }
  for (const service of all) if (!seen.has(service)) order.push(service);
  return order;
}

/** Seconds since the epoch as an ISO time. */
export function isoSeconds(seconds: number): string {
  return Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : String(seconds);
}
