import fc from 'fast-check';
import { NETWORK_STRATEGIES } from '../../../src/sim/network/strategy.js';
import {
  latencyCsvArbitrary,
  networkFileArbitrary,
  scheduleFileArbitrary,
  sidecarConfigArbitrary,
} from './inputFiles.js';

/** A file the run reads, written into the run's temporary directory before it starts. */
export interface InputFile {
  readonly kind: 'input';
  /** The file's name in the directory (its extension is part of what is fuzzed). */
  readonly name: string;
  readonly text: string;
}

/**
 * A path the run may write (`--csv`, `--out`, `--output`), in the run's temporary directory:
 * not there yet, under a missing directory, an existing directory, or an existing file (whose
 * bytes a failed run must leave alone).
 */
export interface OutputPath {
  readonly kind: 'output';
  readonly shape: 'fresh' | 'missing-parent' | 'directory' | 'existing-file';
  /** Whether the option names a directory (`--out DIR`) rather than a file. */
  readonly directory: boolean;
}

/** One command line: plain words, and the files it reads or writes. */
export type CliWord = string | InputFile | OutputPath;

/** A command line and the command it calls, for messages and the per-command exit codes. */
export interface CliCase {
  readonly command: string;
  readonly words: readonly CliWord[];
}

const none = fc.constant<CliWord[]>([]);

/** `--name VALUE` (sometimes), the value one of `values`. */
function option(name: string, values: fc.Arbitrary<CliWord>, weight = 1): fc.Arbitrary<CliWord[]> {
  return fc.oneof(
    { weight: 2, arbitrary: none },
    { weight, arbitrary: values.map((value): CliWord[] => [name, value]) },
  );
}

/** `--name` alone (sometimes). */
function flag(name: string): fc.Arbitrary<CliWord[]> {
  return fc.constantFrom<CliWord[]>([], [name]);
}

/** Good values first (weighted up), then values an option must refuse. */
function values(good: readonly string[], bad: readonly string[]): fc.Arbitrary<CliWord> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...good) },
    { weight: 1, arbitrary: fc.constantFrom(...bad) },
  );
}

const BAD_NUMBERS = [
  '0',
  '-1',
  'abc',
  '',
  'NaN',
  'Infinity',
  '1e400',
  '0x10',
  '1.5',
  ' 1',
] as const;
const EXAMPLES = ['single', 'two-tier', 'hotel', 'hotel-calls'] as const;

/** A network file, given as a FILE argument (or a missing one, or a built-in example). */
function networkSource(largest: number): fc.Arbitrary<CliWord[]> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({
          text: networkFileArbitrary(largest),
          extension: fc.constantFrom('.yaml', '.yaml', '.json', '.yml', '.txt', ''),
        })
        .map(({ text, extension }): CliWord[] => [
          { kind: 'input', name: `network${extension}`, text },
        ]),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...EXAMPLES, 'Hotel', 'nope', '')
        .map((name): CliWord[] => ['--example', name]),
    },
    { weight: 1, arbitrary: fc.constantFrom<CliWord[]>([], ['missing.yaml'], ['.']) },
  );
}

function outputPath(directory: boolean): fc.Arbitrary<CliWord> {
  return fc
    .constantFrom<OutputPath['shape']>(
      'fresh',
      'fresh',
      'missing-parent',
      'directory',
      'existing-file',
    )
    .map((shape): OutputPath => ({ kind: 'output', shape, directory }));
}

const classNames = fc.constantFrom('high', 'low', 'mid', 'HIGH', 'x', '');
const retries = fc.oneof(
  fc.constantFrom('high=5,low=1', 'high=0,low=0', 'high=3', 'low=2', 'high=100,low=100'),
  fc.constantFrom('high=5,low=1,high=2', 'high=-1', 'high=101', 'high', '=', ',', 'high=1.5', ''),
  fc
    .array(fc.tuple(classNames, fc.integer({ min: -1, max: 8 })), { minLength: 1, maxLength: 3 })
    .map((pairs) => pairs.map(([name, k]) => `${name}=${k}`).join(',')),
);
const sweepServices = fc.constantFrom('frontend', 'api', 'search', 'svc', 'nope', '');
const sweepFields = fc.constantFrom('high', 'low', 'capacity', 'normal', 'x');

/** `SERVICE.FIELD=FROM:TO:STEP`, with at most about `points` points when well formed. */
function sweep(points: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc
      .record({
        service: sweepServices,
        field: sweepFields,
        from: fc.constantFrom(0, 0.5, 10, 50, 100),
        span: fc.constantFrom(0, 10, 100),
        count: fc.integer({ min: 1, max: points }),
      })
      .map(
        ({ service, field, from, span, count }) =>
          `${service}.${field}=${from}:${from + span}:${span === 0 ? 1 : span / count}`,
      ),
    fc.constantFrom(
      'frontend.low=50:10:5',
      'frontend.low=0:1:0',
      'frontend.low=0:1e9:1',
      'frontend.capacity=0:10:5',
      'frontend.low=a:b:c',
      'frontend=1:2:1',
      '',
    ),
  );
}

/** Bad options and words any command line may also carry. */
const noise = fc.oneof(
  { weight: 12, arbitrary: none },
  {
    weight: 1,
    arbitrary: fc.constantFrom<CliWord[]>(
      ['--bogus'],
      ['--help'],
      ['-h'],
      ['extra', 'words'],
      ['--json', '--json'],
      ['--'],
      ['-'],
      ['--duration'],
    ),
  },
);

function commandLine(command: string, ...parts: fc.Arbitrary<CliWord[]>[]): fc.Arbitrary<CliCase> {
  return fc.tuple(fc.tuple(...parts), noise, fc.nat()).map(([groups, extra, at]): CliCase => {
    const words = groups.flat();
    // The noise lands anywhere after the command's own words.
    const i = words.length === 0 ? 0 : at % (words.length + 1);
    return {
      command,
      words: [...command.split(' '), ...words.slice(0, i), ...extra, ...words.slice(i)],
    };
  });
}

const analyze = commandLine(
  'analyze',
  networkSource(Number.MAX_VALUE),
  flag('--json'),
  option('--model', values(['fluid', 'mm1m', 'mixed'], ['MM1M', 'x', ''])),
  option('--retries', retries),
  option('--timeout', values(['50', '250', '1000', '0.001'], BAD_NUMBERS)),
  option('--sweep', sweep(20)),
  option('--csv', outputPath(false)),
);

/** Simulations stay tiny: a second of virtual time or less, a few replications, a few points. */
const simulateDuration = fc.oneof(
  { weight: 12, arbitrary: option('--duration', values(['0.05', '0.2', '1'], BAD_NUMBERS), 20) },
  { weight: 1, arbitrary: fc.constant<CliWord[]>(['--duration', '1e12']) },
);
const simulateReplications = fc.oneof(
  {
    weight: 12,
    arbitrary: option('--replications', values(['1', '2', '3'], ['0', '10001', 'x']), 20),
  },
  { weight: 1, arbitrary: none },
);
const simulateStrategy = option('--strategy', values(NETWORK_STRATEGIES, ['Uniform', 'x', '']));
const fixedTimeout = option('--timeout', values(['50', '250', '1000'], BAD_NUMBERS));
const adaptiveTimeouts = option(
  '--timeouts',
  values(
    [
      'rto',
      'exponential-backoff',
      'optimizer',
      'controller',
      'combined',
      '{"kind":"rto","minMs":20}',
    ],
    ['{"kind":"rto","minMs":-1}', '{"kind":"x"}', '{', '[]', 'RTO', ''],
  ),
);
const schedule = option(
  '--schedule',
  scheduleFileArbitrary().map((text): CliWord => ({ kind: 'input', name: 'schedule.yaml', text })),
);
const windowSeconds = option('--window', values(['0.1', '0.5', '1'], ['0', '-1', 'x']));
const csv = option('--csv', outputPath(false));

/** Any combination of simulate's options, most of them refused together. */
const simulateAnything = commandLine(
  'simulate',
  networkSource(1000),
  flag('--json'),
  simulateDuration,
  option('--warmup', values(['0', '0.05', '0.2'], ['-1', 'x', 'NaN', ''])),
  option('--seed', values(['0', '1', '2147483647'], ['-1', '2147483648', '1.5', 'x'])),
  simulateReplications,
  option('--retries', retries),
  simulateStrategy,
  fixedTimeout,
  adaptiveTimeouts,
  option('--sweep', sweep(3)),
  schedule,
  windowSeconds,
  csv,
  flag('--compare-analysis'),
);

/** The combinations simulate accepts: one kind of timeout, and a sweep or windows (not both). */
const simulateRun = commandLine(
  'simulate',
  networkSource(1000),
  simulateDuration,
  simulateReplications,
  simulateStrategy,
  fc.oneof(none, fixedTimeout, adaptiveTimeouts),
  fc.oneof(
    none,
    fc.tuple(option('--sweep', sweep(3), 10), csv).map((parts) => parts.flat()),
    fc
      .tuple(option('--window', values(['0.1', '0.5'], ['0']), 10), schedule, csv)
      .map((parts) => parts.flat()),
  ),
  flag('--compare-analysis'),
  flag('--json'),
);

const simulate = fc.oneof(simulateAnything, simulateRun);

const tune = commandLine(
  'tune',
  networkSource(Number.MAX_VALUE),
  fc.oneof(
    {
      weight: 6,
      arbitrary: option(
        '--grid',
        values(
          ['high=0:2,low=0:1', 'high=0:3', 'low=0:2,high=1', 'high=1,low=1'],
          ['high=2:1', 'high=0:101', 'x=0:1', 'high=a:b', '', 'high=0:100,low=0:1000'],
        ),
        20,
      ),
    },
    { weight: 1, arbitrary: none },
  ),
  option('--objective', values(['goodput', 'weighted-goodput'], ['x', ''])),
  option('--weights', values(['high=10,low=1', 'high=1'], ['high=-1', 'x', 'high=a'])),
  option(
    '--constraint',
    values(
      ['high.rejection<=0.05', 'attemptsPerRequest<=4', 'monostable', 'goodput>=1', 'storms<=0'],
      ['x<=1', 'high.rejection<=', 'rejection', 'high.rejection<=NaN', ''],
    ),
  ),
  option('--frontier', values(['0', '3', '10'], ['-1', '100001', 'x'])),
  option('--digits', values(['1', '6', '15'], ['0', '16', 'x'])),
  flag('--json'),
  option('--model', values(['fluid', 'mm1m', 'mixed'], ['x'])),
  // Timed analyses slow down as the timeout shrinks (16 ms: 1 s each on hotel-calls), and tune
  // runs dozens: keep its timeouts ordinary.
  option('--timeout', values(['250', '1000'], BAD_NUMBERS)),
);

const verifyUniqueness = commandLine(
  'verify-uniqueness',
  fc.constant<CliWord[]>(['--threads', '1']),
  option('--graphs', values(['1', '2'], ['0', '-1', 'x', '1.5']), 6),
  option('--configs', values(['1', '2'], ['0', 'x']), 6),
  option('--inits', values(['2', '3'], ['1', '0', 'x']), 6),
  option('--seed', values(['0', '7', '2147483647'], ['-1', 'x'])),
  option('--classes-max', values(['1', '2', '9'], ['0', '21', 'x'])),
  option('--form', values(['routes', 'calls'], ['Routes', 'x', ''])),
  // A counterexample is written only when one is found, and never outside the run's directory.
  fc
    .constant<CliWord[]>(['--out'])
    .chain((name) => outputPath(true).map((path) => [...name, path])),
  flag('--json'),
);

const timeoutsEval = commandLine(
  'timeouts eval',
  option(
    '--scenario',
    values(
      ['all', 'stable', 'spikes', 'Spikes', 'random-walk', 'stable,dips', ' Slow-Increase '],
      ['x', '', ',', 'all,x'],
    ),
  ),
  option(
    '--strategies',
    values(
      ['rto', 'combined', 'rto,optimizer', 'exponential-backoff,controller'],
      ['x', '', ',', 'rto,,x'],
    ),
  ),
  // The default 2 000 requests per scenario are fine, but the small counts leave room for more runs.
  option('--requests', values(['20', '50', '100'], ['19', '0', 'x', '1000001']), 20),
  option('--seed', values(['0', '3'], ['-1', 'x'])),
  flag('--json'),
);

const timeoutsFit = commandLine(
  'timeouts fit',
  fc.oneof(
    {
      weight: 8,
      arbitrary: latencyCsvArbitrary().map((text): CliWord[] => [
        { kind: 'input', name: 'latencies.csv', text },
      ]),
    },
    { weight: 1, arbitrary: fc.constantFrom<CliWord[]>([], ['missing.csv'], ['.']) },
  ),
  option('--depth', values(['1', '2', '4', '16'], ['0', '17', 'x', '1.5'])),
  option('--tz', values(['0.5', '2', '100'], BAD_NUMBERS)),
  option('--cost', values(['0', '0.5', '1', '10'], ['-1', 'x', 'NaN'])),
  flag('--json'),
);

const meshSidecars = commandLine(
  'mesh sidecars',
  networkSource(Number.MAX_VALUE),
  option('--out', outputPath(true), 2),
  flag('--json'),
  option('--host', values(['127.0.0.1', 'localhost', '::1'], ['', 'a b', 'http://x', '[::1'])),
  option('--base-port', values(['1', '15000', '65535'], ['0', '65536', 'x'])),
  option('--app-base-port', values(['8080', '65535'], ['0', '65536', 'x'])),
  option('--token-env', values(['DIFFTRY_MESH_TOKEN', 'T'], ['1x', 'a-b', ''])),
);

const generate = commandLine(
  'generate',
  fc.constantFrom<CliWord[]>(['mubench'], ['dgg'], ['cyclic'], ['Mubench'], ['x'], []),
  option('--services', values(['1', '2', '5', '7', '30'], ['0', '9', '10001', 'x'])),
  option('--classes', values(['1', '2', '5', '20'], ['0', '21', 'x'])),
  option('--seed', values(['0', '5'], ['-1', 'x'])),
  option('--form', values(['routes', 'calls'], ['x', ''])),
  option('--output', outputPath(false)),
  flag('--json'),
);

const proxy = commandLine(
  'proxy',
  fc.oneof(
    {
      weight: 8,
      arbitrary: sidecarConfigArbitrary().map((text): CliWord[] => [
        '--config',
        { kind: 'input', name: 'sidecar.yaml', text },
      ]),
    },
    { weight: 1, arbitrary: fc.constantFrom<CliWord[]>([], ['--config', 'missing.yaml']) },
  ),
  option('--grace-ms', values(['0', '10'], ['-1', 'x'])),
);

/**
 * A command line over the CLI's real commands, each kept small enough that many fit in a
 * second: tiny simulations and grids, few requests, one thread.
 */
export const cliCaseArbitrary: fc.Arbitrary<CliCase> = fc.oneof(
  { weight: 3, arbitrary: analyze },
  { weight: 3, arbitrary: simulate },
  { weight: 2, arbitrary: tune },
  { weight: 1, arbitrary: verifyUniqueness },
  { weight: 1, arbitrary: timeoutsEval },
  { weight: 2, arbitrary: timeoutsFit },
  { weight: 2, arbitrary: meshSidecars },
  { weight: 1, arbitrary: generate },
  { weight: 2, arbitrary: proxy },
);

/** The same command lines, by command, for a property that keeps to one. */
export const cliCaseArbitraries = {
  analyze,
  simulate,
  tune,
  verifyUniqueness,
  timeoutsEval,
  timeoutsFit,
  meshSidecars,
  generate,
  proxy,
} as const;
