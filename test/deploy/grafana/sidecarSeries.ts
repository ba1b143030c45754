import { createSidecarMetrics } from '../../../src/mesh/sidecarMetrics.js';

/**
 * The series a real sidecar exposes, read from its own registry's Prometheus text: each series
 * name (a histogram's `_bucket`, `_sum` and `_count` included) and the label names it carries.
 * The sidecar is given every gauge source and an upstream, so that every metric it can register
 * is there; every series of a declared upstream and class starts at 0, so each appears.
 */
export async function sidecarSeries(
  classes: readonly string[],
): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
  const metrics = createSidecarMetrics({
    service: 'frontend',
    classes,
    upstreams: ['search'],
    inbound: true,
    gauges: {
      timeoutMs: () => 250,
      admission: () => ({ running: 0, queued: 0 }),
      inFlight: () => 0,
    },
  });
  // Counters that start only when counted.
  metrics.limitRejection('inbound', 'body_bytes');
  const text = await metrics.registry.metrics();
  const series = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s/.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels = series.get(match[1] as string) ?? new Set<string>();
    for (const label of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) {
      labels.add(label[1] as string);
    }
    series.set(match[1] as string, labels);
  }
  return series;
}
