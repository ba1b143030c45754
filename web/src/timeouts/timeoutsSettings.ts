import {
  isTimeoutScenarioName,
  TIMEOUT_EVAL_STRATEGIES,
  type TimeoutEvalStrategy,
  type TimeoutScenarioName,
} from 'difftry/experiments';

/**
 * What the settings are read from: the view's `context.url` (a `UrlState`), or a test's stand-in
 * (a structural type, so that this module stays free of the DOM for the unit tests).
 */
export interface SettingsQuery {
  /** The parameter's value, or undefined when there is none. */
  get(key: string): string | undefined;
  /** A number parameter, or `fallback` when missing or not a finite number. */
  number(key: string, fallback: number): number;
}

/** The parametric latency laws the view offers (an uploaded sample is the third source). */
export const PARAMETRIC_LAWS = ['lognormal', 'mixture'] as const;

/** One of {@link PARAMETRIC_LAWS}. */
export type ParametricLaw = (typeof PARAMETRIC_LAWS)[number];

/**
 * A parametric latency law as its sliders set it: one lognormal (`medianS`, `sigma`), or a mixture
 * of that fast path with a slow lognormal path (`median2S`, `sigma2`) taken with probability
 * `slowShare`. Medians in seconds; sigmas are the sd of ln(latency).
 */
export interface LawSettings {
  readonly kind: ParametricLaw;
  readonly medianS: number;
  readonly sigma: number;
  readonly median2S: number;
  readonly sigma2: number;
  readonly slowShare: number;
}

/** Everything the Timeouts view keeps in its URL, so a link reproduces it. */
export interface TimeoutsSettings {
  readonly law: LawSettings;
  /** The ceiling t_z (s); undefined: the model's default ceiling for the law. */
  readonly tzS: number | undefined;
  /** Timeouts in the ladder, t_z included. */
  readonly depth: number;
  /** c1 of the attempt cost g(t) = c1·t. */
  readonly costSlope: number;
  /** The timeout of Fig 1's attempt (s); undefined: the law's best single timeout. */
  readonly markovTS: number | undefined;
  readonly scenario: TimeoutScenarioName;
  readonly strategy: TimeoutEvalStrategy;
}

/** A slider's range: bounds and step, in the setting's unit. */
export interface SettingRange {
  readonly min: number;
  readonly max: number;
  readonly step: number;
}

/** Medians of either lognormal path, seconds. */
const MEDIAN_RANGE = { min: 0.01, max: 2, step: 0.01 } as const;
/** σ of ln(latency) of either path. */
const SIGMA_RANGE = { min: 0.05, max: 1.5, step: 0.05 } as const;

/** The sliders' ranges; values read from a URL are clamped into them. */
export const SETTING_RANGES = {
  medianS: MEDIAN_RANGE,
  sigma: SIGMA_RANGE,
  median2S: MEDIAN_RANGE,
  sigma2: SIGMA_RANGE,
  slowShare: { min: 0, max: 1, step: 0.01 },
  depth: { min: 1, max: 8, step: 1 },
  costSlope: { min: 0, max: 1, step: 0.01 },
} as const satisfies Record<string, SettingRange>;

/**
 * The view's defaults: the bimodal law of `examples/latencies.csv` (70 % lognormal with median
 * 0.1 s, 30 % with median 0.5 s, σ = 0.25 both), the CLI's depth 4 and cost 0, and the Combined
 * system on Spikes, where the ladder's ceiling earns its keep.
 */
export const TIMEOUTS_DEFAULTS: TimeoutsSettings = {
  law: { kind: 'mixture', medianS: 0.1, sigma: 0.25, median2S: 0.5, sigma2: 0.25, slowShare: 0.3 },
  tzS: undefined,
  depth: 4,
  costSlope: 0,
  markovTS: undefined,
  scenario: 'spikes',
  strategy: 'combined',
};

/** The URL keys of the view's settings. */
export const TIMEOUTS_URL_KEYS = {
  law: 'law',
  medianS: 'median',
  sigma: 'sigma',
  median2S: 'median2',
  sigma2: 'sigma2',
  slowShare: 'slow',
  tzS: 'tz',
  depth: 'depth',
  costSlope: 'cost',
  markovTS: 't',
  scenario: 'scenario',
  strategy: 'strategy',
} as const;

/**
 * The view's settings from the URL: each missing or unusable value is its default, each number
 * clamped into its slider's range (depth rounded), and a timeout that is not a positive number is
 * left to the law's default.
 * @example
 * ```ts
 * readTimeoutsSettings(context.url).law.medianS; // 0.1 without `?median=`
 * ```
 */
export function readTimeoutsSettings(url: SettingsQuery): TimeoutsSettings {
  const keys = TIMEOUTS_URL_KEYS;
  const { law, ...defaults } = TIMEOUTS_DEFAULTS;
  const ranges = SETTING_RANGES;
  const number = (key: string, fallback: number, range: SettingRange) =>
    Math.min(range.max, Math.max(range.min, url.number(key, fallback)));
  const timeout = (key: string): number | undefined => {
    const value = url.number(key, Number.NaN);
    return value > 0 ? value : undefined;
  };
  const scenario = url.get(keys.scenario) ?? '';
  return {
    law: {
      kind: PARAMETRIC_LAWS.find((name) => name === url.get(keys.law)) ?? law.kind,
      medianS: number(keys.medianS, law.medianS, ranges.medianS),
      sigma: number(keys.sigma, law.sigma, ranges.sigma),
      median2S: number(keys.median2S, law.median2S, ranges.median2S),
      sigma2: number(keys.sigma2, law.sigma2, ranges.sigma2),
      slowShare: number(keys.slowShare, law.slowShare, ranges.slowShare),
    },
    tzS: timeout(keys.tzS),
    depth: Math.round(number(keys.depth, defaults.depth, ranges.depth)),
    costSlope: number(keys.costSlope, defaults.costSlope, ranges.costSlope),
    markovTS: timeout(keys.markovTS),
    scenario: isTimeoutScenarioName(scenario) ? scenario : defaults.scenario,
    strategy:
      TIMEOUT_EVAL_STRATEGIES.find((name) => name === url.get(keys.strategy)) ?? defaults.strategy,
  };
}

/**
 * The URL values of the settings, for `UrlState.set`: a timeout left to its default is
 * removed from the URL, and so are the slow path's parameters of a single lognormal.
 */
export function timeoutsUrlValues(
  settings: TimeoutsSettings,
): Record<string, string | number | undefined> {
  const keys = TIMEOUTS_URL_KEYS;
  const { law } = settings;
  const mixture = law.kind === 'mixture';
  return {
    [keys.law]: law.kind,
    [keys.medianS]: law.medianS,
    [keys.sigma]: law.sigma,
    [keys.median2S]: mixture ? law.median2S : undefined,
    [keys.sigma2]: mixture ? law.sigma2 : undefined,
    [keys.slowShare]: mixture ? law.slowShare : undefined,
    [keys.tzS]: settings.tzS,
    [keys.depth]: settings.depth,
    [keys.costSlope]: settings.costSlope,
    [keys.markovTS]: settings.markovTS,
    [keys.scenario]: settings.scenario,
    [keys.strategy]: settings.strategy,
  };
}
