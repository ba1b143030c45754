import { encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { seededRandom } from '../../model/random.js';
import { type OpenLoopReport, openLoopPoisson } from '../load/openLoopPoisson.js';
import { drawPath } from '../network/callProgram.js';
import { externalClientDownstream } from '../network/startIngress.js';
import type { EdgeHooks, EdgePlan, EdgeStreamReport } from './EdgePlan.js';

/**
 * Runs the edge of a testbed in this thread: the external client
 * ({@link externalClientDownstream}: every entry service called directly with the runtime's
 * `retry()` under the entry's DiffTry limits — the analysis's external client, which retries a
 * request at most k_entry^p times — or, on the gRPC testbed, over an `xds:///ENTRY` channel that
 * gRPC retries from the same limits) offers every stream with {@link openLoopPoisson} for
 * warm-up plus window, and on through a drain of at most `plan.graceS`: the requests sent in the
 * window are followed to their end while every stream keeps loading the network, and all the
 * drains end together, when the last stream's window requests have ended. Each request draws its
 * endpoint from the entry's branches and carries the class header and the external marker. A
 * request's latency runs from its intended send time to the end of its last attempt.
 */
export async function runEdge(plan: EdgePlan, hooks: EdgeHooks = {}): Promise<EdgeStreamReport[]> {
  const { client } = plan;
  const downstream = await externalClientDownstream(client);
  try {
    const totalS = plan.warmupS + plan.durationS;
    const window = { fromS: plan.warmupS, toS: totalS };
    // One stream's window may end before another's: its load must go on until all have.
    const drainEnd = new AbortController();
    let windowsOpen = plan.streams.length;
    const onWindowEnded = () => {
      windowsOpen--;
      if (windowsOpen === 0) drainEnd.abort();
    };
    hooks.onStarted?.();
    const reports = await Promise.all(
      plan.streams.map((stream, i) => {
        const endpoints = seededRandom(stream.seed, stream.endpointStream);
        return openLoopPoisson({
          rate: stream.rate,
          durationS: totalS,
          seed: stream.seed,
          stream: stream.stream,
          window,
          batches: plan.batches,
          graceS: plan.graceS,
          endDrain: drainEnd.signal,
          onWindowEnded,
          ...(hooks.signal !== undefined && { signal: hooks.signal }),
          ...(i === 0 && hooks.onProgress !== undefined && { onProgress: hooks.onProgress }),
          send: () =>
            downstream.call(stream.entry, stream.className, {
              path: drawPath(stream.program, endpoints),
              external: true,
            }),
        });
      }),
    );
    return reports.map(encodeReport);
  } finally {
    await downstream.close();
  }
}

/** A report with its histogram encoded, so it can cross a thread. */
export function encodeReport(report: OpenLoopReport): EdgeStreamReport {
  const { histogram, ...window } = report.window;
  return {
    ...report,
    window: { ...window, histogramBase64: encodeIntoCompressedBase64(histogram) },
  };
}
