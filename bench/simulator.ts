/**
 * Simulator throughput, in events per second, against a named peer measured in the same run:
 * a bare push/pop loop on the same {@link EventQueue} with random times, the cost floor of any
 * event-driven simulation built on it. The ratio says how much of that floor the single-service
 * model's own work (random draws, backoff, request state, statistics) leaves.
 *
 * One untimed warm-up run of each case, then REPETITIONS rounds that run each case once, peer
 * first, so a burst of load from other processes falls on both alike; medians are reported.
 *
 * Run alone with `npx tsx bench/simulator.ts`.
 */
import { pathToFileURL } from 'node:url';
import { seededRandom } from '../src/model/random.js';
import { EventQueue } from '../src/sim/engine/EventQueue.js';
import type { SingleServiceConfig } from '../src/sim/SingleServiceConfig.js';
import { simulateSingleService } from '../src/sim/singleService.js';
import { interleavedEventRates } from './harness.js';

/** Timed repetitions per case; the median is reported. */
const REPETITIONS = 7;
/** Events held in the peer's heap: about what the simulator holds under this overload
 * (two arrival streams, a departure and some 60 pending retries). */
const HELD_EVENTS = 64;
const PEER_EVENTS = 4_000_000;

/** The two-class overload of the DiffTry papers: ρ ≈ 2.1 before retries. */
const TWO_CLASSES: SingleServiceConfig = {
  capacity: 143,
  queue: 50,
  classes: [
    { name: 'high', arrivalRate: 50, retryLimit: 5, backoff: { kind: 'random', meanMs: 100 } },
    { name: 'low', arrivalRate: 250, retryLimit: 1, backoff: { kind: 'random', meanMs: 100 } },
  ],
  duration: 2_000,
  seed: 1,
};

interface Measurement {
  readonly events: number;
  readonly checksum: number;
}

/** The peer: pop the earliest event and push it back a random time later (the hold model). */
function bareHeap(): Measurement {
  const queue = new EventQueue();
  const random = seededRandom(1);
  for (let i = 0; i < HELD_EVENTS; i++) queue.push(random(), i & 3, i);
  let checksum = 0;
  for (let i = 0; i < PEER_EVENTS; i++) {
    const time = queue.peekTime();
    const kind = queue.peekKind();
    const payload = queue.peekPayload();
    queue.pop();
    checksum += kind;
    queue.push(time + random(), kind, payload);
  }
  return { events: PEER_EVENTS, checksum: checksum + queue.peekTime() };
}

function simulator(): Measurement {
  const result = simulateSingleService(TWO_CLASSES);
  const high = result.classes.high;
  const low = result.classes.low;
  if (high === undefined || low === undefined) throw new Error('simulator lost a class');
  return { events: result.events, checksum: result.s + high.rejection + low.rejection };
}

interface Timed {
  readonly eventsPerSecond: number;
  readonly checksum: number;
}

/** Median events per second of each case (see {@link interleavedEventRates}). */
function measureAll(cases: readonly (readonly [string, () => Measurement])[]): Timed[] {
  return interleavedEventRates(cases, REPETITIONS).map(({ reference, eventsPerSecond }) => ({
    eventsPerSecond,
    checksum: reference.checksum,
  }));
}

/** Measures and prints the table. */
export async function run(): Promise<void> {
  const [peer, sim] = measureAll([
    ['bare heap', bareHeap],
    ['single service', simulator],
  ]) as [Timed, Timed];
  const rows = [
    ['(a) bare EventQueue push/pop (peer)', peer],
    ['(b) single service, 2 classes, retries', sim],
  ] as const;
  console.log('simulator throughput (median of %d runs)', REPETITIONS);
  for (const [label, { eventsPerSecond, checksum }] of rows) {
    console.log(
      `  ${label.padEnd(42)} ${(eventsPerSecond / 1e6).toFixed(2).padStart(7)} M events/s   checksum ${checksum.toPrecision(12)}`,
    );
  }
  console.log(
    `  ratio (b)/(a)${' '.repeat(30)}${(sim.eventsPerSecond / peer.eventsPerSecond).toFixed(3).padStart(7)}`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
