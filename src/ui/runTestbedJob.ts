import { builtinExample } from '../config/examples.js';
import { parseNetwork } from '../config/parseNetwork.js';
import type { NetworkSpec } from '../config/schema.js';
import { figure5LimitPairs } from '../experiments/figure5/figure5Sweep.js';
import { FIG5_PRESETS, type Fig5Point, runFig5 } from '../experiments/figure5/testbedFigure5.js';
import type { NetworkReport } from '../model/network/NetworkReport.js';
import { measureTestbed, type TestbedMeasurement } from '../testbed/experiment/measureTestbed.js';
import { predictTestbed } from '../testbed/experiment/predictTestbed.js';
import { TESTBED_BACKOFF, TESTBED_RUN_SETTINGS } from '../testbed/experiment/runValidity.js';
import type { TestbedClassPoint, TestbedJobRunner } from './TestbedJob.js';

const example = (name: string): NetworkSpec => {
  const { fileName, text } = builtinExample(name);
  return parseNetwork(text, fileName);
};

/** The page's point of one measurement: per class, measured beside predicted (call graph). */
export function classPoints(
  measurement: TestbedMeasurement,
  predicted: NetworkReport,
): TestbedClassPoint[] {
  return measurement.classes.map((c) => ({
    name: c.name,
    measured: c.rejection,
    ci95: c.rejectionCi95,
    predicted: predicted.endToEnd[c.name]?.rejection ?? Number.NaN,
    p50: c.latency.p50,
  }));
}

/**
 * The UI server's testbed runner: `run` measures hotelReservation (`hotel-calls`, predicted in
 * call-graph form) once, `fig5` runs the quick Figure 5 sweep and streams each point as it is
 * measured; both with the CLI's code (`measureTestbed`, `predictTestbed`, `runFig5`), so the page
 * shows what `difftry testbed run` and `difftry testbed fig5 --quick` print.
 */
export const runTestbedJob: TestbedJobRunner = async (request, { signal, emit }) => {
  const network = example('hotel-calls');
  const transport = request.transport ?? 'http';
  if (request.kind === 'run') {
    emit({ kind: 'started', request, points: 1 });
    const measurement = await measureTestbed(network, {
      scale: request.scale ?? TESTBED_RUN_SETTINGS.scale,
      backoff: TESTBED_BACKOFF,
      seed: request.seed ?? TESTBED_RUN_SETTINGS.seed,
      sidecars: true,
      transport,
      edgeThread: true,
      warmupS: request.warmupS ?? TESTBED_RUN_SETTINGS.warmupS,
      durationS: request.durationS ?? TESTBED_RUN_SETTINGS.durationS,
      signal,
      onProgress: (fraction) => emit({ kind: 'progress', fraction, label: 'testbed run' }),
    });
    if (measurement.aborted) return;
    const prediction = predictTestbed(measurement);
    const low = network.classes[network.classes.length - 1]?.name ?? 'low';
    const entry = network.services.find((s) => (s.arrivals?.[low] ?? 0) > 0);
    emit({
      kind: 'point',
      x: entry?.arrivals?.[low] ?? 0,
      k: 'file',
      classes: classPoints(measurement, prediction.calls),
    });
    return;
  }
  const preset = FIG5_PRESETS.quick;
  emit({ kind: 'started', request, points: preset.gammaLows.length * 2 });
  await runFig5({
    network,
    gammaLows: preset.gammaLows,
    warmupS: request.warmupS ?? preset.warmupS,
    durationS: request.durationS ?? preset.durationS,
    ...(request.scale !== undefined && { scale: request.scale }),
    ...(request.seed !== undefined && { seed: request.seed }),
    transport,
    // gRPC makes at most 5 attempts a call: over grpc-xds the CLI's default (4, 1) vs (4, 4).
    ...(transport === 'grpc-xds' && {
      limits: figure5LimitPairs(
        [
          [4, 1],
          [4, 4],
        ],
        network.classes[0]?.name ?? 'high',
        network.classes[network.classes.length - 1]?.name ?? 'low',
      ),
    }),
    signal,
    onProgress: (fraction, label) => emit({ kind: 'progress', fraction, label }),
    onPoint: (point: Fig5Point) =>
      emit({
        kind: 'point',
        x: point.gammaLow,
        k: point.limit.key,
        classes: classPoints(point.measurement, point.prediction.calls),
      }),
  });
};
