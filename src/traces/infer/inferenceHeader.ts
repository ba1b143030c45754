import { isoSeconds, UNMEASURED_HEADROOM } from './inferNetwork.js';
import type { TraceEvidence } from './TraceEvidence.js';

const count = (n: number) => n.toLocaleString('en-US');
/** `n` things: `1 span`, `2 spans`. */
const things = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;
const figure = (x: number) => Number(x.toPrecision(4)).toString();

/** Services whose capacity rests on fewer spans than this are marked rough. */
const ROUGH_SPANS = 30;

/**
 * The header comment of a network file inferred from traces: the command that made it, what was
 * inferred from how much data, how each capacity was found, and what is a guess.
 */
export function inferenceHeader(evidence: TraceEvidence, command: string): string {
  const lines = [`Inferred by: ${command}`];
  const w = evidence.window;
  lines.push(
    `From ${things(evidence.spans, 'span')}${evidence.duplicateSpans > 0 ? ` (${count(evidence.duplicateSpans)} read twice, counted once)` : ''}; window ${isoSeconds(w.from)} – ${isoSeconds(w.to)} (${figure(w.seconds)} s, ${w.chosen === 'given' ? 'as given' : 'from the first entry request to the last'}), ${things(evidence.entryRequests, 'entry request')}.`,
    'Rates are in requests per second. Arrivals: entry requests (server spans with no server span above them) per class over the window.',
    'Calls: from client spans and the server spans below them; `calls` every request makes, `branches` the further call sets with their shares; parallel where calls overlapped in time.',
    'Capacities: μ = X / U (utilization law), X requests completed per second, U the share of the window some request was in the service outside its calls:',
  );
  const width = Math.max(...evidence.services.map((s) => s.name.length));
  for (const s of evidence.services) {
    const c = s.capacity;
    const how =
      c.method === 'given'
        ? 'given (--capacity)'
        : c.method === 'guess'
          ? `a guess: its ${things(c.spans, 'span')} took no time in the window, so ${UNMEASURED_HEADROOM} × its load; give --capacity`
          : `± ${Math.round(100 * c.relativeCi95)} %, X ${figure(c.throughput)}/s, U ${figure(c.busyShare)}, ${things(c.spans, 'span')}${c.method === 'client-spans' ? ', from the client spans calling it (it records none): a guess' : ''}${c.spans < ROUGH_SPANS && c.method !== 'client-spans' ? ': rough, few spans' : ''}`;
    lines.push(`  ${s.name.padEnd(width)}  μ ${figure(c.value)}  (${how})`);
  }
  lines.push(
    'Retries: per callee and class, the most retries one call made (http.request.resend_count, or a failed attempt repeated); the deployed limit is at least this. A hop where no attempt failed shows nothing of its limit and keeps its class’s.',
  );
  const guesses = [
    `queue m = ${evidence.queue.value} for every service${evidence.queue.given ? ' (--queue)' : ' (the default; give --queue)'}`,
    'the class order (priority, highest first) as given by --classes or as first seen',
    'per-try timeouts and backoff are not inferred',
  ];
  if (evidence.unclassedRequests > 0) {
    guesses.push(
      `${things(evidence.unclassedRequests, 'request')} carried no class and ${evidence.unclassedRequests === 1 ? 'is' : 'are'} "${evidence.defaultClass}"`,
    );
  }
  lines.push(`Guesses: ${guesses.join('; ')}.`);
  const leftOut: string[] = [];
  if (evidence.droppedEdges.length > 0) {
    const edges = evidence.droppedEdges.map(
      (e) => `${e.caller} → ${e.callee} (${things(e.calls, 'call')})`,
    );
    leftOut.push(`to keep the calls acyclic, the calls ${edges.join(', ')}`);
  }
  for (const s of evidence.services) {
    if (s.leftOutShare > 0) {
      leftOut.push(
        `rarer call sets of ${s.name} (${figure(100 * s.leftOutShare)} % of its requests)`,
      );
    }
    if (s.unresolvedCalls > 0) {
      leftOut.push(`${things(s.unresolvedCalls, 'client span')} of ${s.name} naming no callee`);
    }
  }
  if (leftOut.length > 0) lines.push(`Left out: ${leftOut.join('; ')}.`);
  return lines.join('\n');
}
