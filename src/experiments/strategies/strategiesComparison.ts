/**
 * The written comparison of docs/strategies.md ("Where DiffTry wins and where a budget does
 * better"): its figures are read from the run, and each qualitative statement it makes is checked
 * against them. A statement the run no longer supports is returned in `failed` and flagged in the
 * text.
 */
import { RATIO_BUDGET_DEFAULTS } from '../../policy/budget/index.js';
import { fixed, percent } from '../../report/numberFormat.js';
import { VARIANTS, type Variant } from './delayVariants.js';
import {
  overallRejection as overallRejectionOf,
  type StrategyRow,
  strategyRow,
} from './StrategyRow.js';
import {
  CLASS_UNAWARE_BUDGETS,
  STRATEGY_INFO,
  SUBJECTS,
  type Subject,
} from './strategySubjects.js';
import type { StrategySweepSetup } from './strategySweep.js';

/** The comparison's Markdown lines, and the statements the run does not support. */
export interface StrategiesComparison {
  readonly lines: readonly string[];
  readonly failed: readonly string[];
}

/**
 * The comparison for a run of the whole default sweep (every strategy and reference, both
 * delays): it reads the heaviest point and every overloaded one.
 */
export function strategiesComparison(
  rows: readonly StrategyRow[],
  setup: Readonly<StrategySweepSetup>,
): StrategiesComparison {
  const { gammaHigh, gammaLows, headlineGammaLow } = setup;
  const row = (variant: Variant['key'], strategy: Subject, gammaLow: number) =>
    strategyRow(rows, variant, strategy, gammaLow);
  const overallRejection = (r: StrategyRow) => overallRejectionOf(r, gammaHigh);
  const G = headlineGammaLow;
  const at = (v: Variant['key'], s: Subject, g: number = G) => row(v, s, g);
  const pct = (x: number) => percent(x);
  const span = (xs: readonly number[], scale = 100, digits = 1, unit = ' %') => {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    const f = (x: number) => (scale * x).toFixed(digits);
    return f(lo) === f(hi) ? `${f(lo)}${unit}` : `${f(lo)}–${f(hi)}${unit}`;
  };
  const points = (pick: (g: number) => boolean): readonly number[] => gammaLows.filter(pick);
  /** The loads where uniform limits reject more than 1 % of the high class: the overload. */
  const overloaded = points((g) => at('long', 'uniform', g).highRejection > 0.01);
  const range = (gs: readonly number[]) =>
    gs.length === 0
      ? 'no load'
      : gs.length === 1
        ? `γ_low = ${gs[0]}`
        : `γ_low = ${gs[0]}–${gs[gs.length - 1]}`;
  const both = ['long', 'short'] as const;
  const failed: string[] = [];
  const claim = (holds: boolean, what: string) => {
    if (!holds) failed.push(what);
  };
  const everywhere = (test: (v: Variant['key'], g: number) => boolean) =>
    both.every((v) => overloaded.every((g) => test(v, g)));
  /** Share of the frontend's attempts (high class), and of the completions, at `g`. */
  const shares = (v: Variant['key'], s: Subject, g: number = G) => {
    const r = at(v, s, g);
    const highAttempts = gammaHigh * (1 + r.highFrontendRetries);
    const lowAttempts = g * (1 + r.lowFrontendRetries);
    const highDone = gammaHigh * (1 - r.highRejection);
    const lowDone = g * (1 - r.lowRejection);
    return {
      attempts: highAttempts / (highAttempts + lowAttempts),
      completions: highDone / (highDone + lowDone),
    };
  };

  const d = (s: Subject, v: Variant['key'] = 'long') => at(v, s);
  const unaware = CLASS_UNAWARE_BUDGETS.map((s) => d(s));
  const allOverall = both.flatMap((v) => SUBJECTS.map((s) => overallRejection(at(v, s))));
  claim(
    Math.max(...allOverall) - Math.min(...allOverall) < 0.01,
    'every strategy rejects the same share of all requests at the heaviest point',
  );
  const shareGap = Math.max(
    ...both.flatMap((v) =>
      SUBJECTS.map((s) => Math.abs(shares(v, s).attempts - shares(v, s).completions)),
    ),
  );
  claim(shareGap < 0.02, 'each class completes its share of the frontend’s attempts');
  claim(
    everywhere((v, g) =>
      [...CLASS_UNAWARE_BUDGETS, 'uniform' as const, 'no-retries' as const].every(
        (s) => at(v, 'difftry', g).highRejection < at(v, s, g).highRejection,
      ),
    ),
    'DiffTry rejects fewer high-class requests than every class-unaware strategy at every overload',
  );
  const unawareGap = Math.max(
    ...both.flatMap((v) =>
      overloaded.flatMap((g) =>
        CLASS_UNAWARE_BUDGETS.flatMap((s) => {
          const r = at(v, s, g);
          const u = at(v, 'uniform', g);
          return [
            Math.abs(r.highRejection - r.lowRejection),
            Math.abs(r.highRejection - u.highRejection),
          ];
        }),
      ),
    ),
  );
  claim(unawareGap < 0.02, 'the class-unaware budgets treat both classes alike, as uniform does');
  const predictionGapOf = (v: Variant['key']) =>
    Math.max(
      ...gammaLows.flatMap((g) =>
        (['difftry', 'uniform'] as const).flatMap((s) => {
          const r = at(v, s, g);
          return [
            Math.abs(r.highRejection - r.predHighRejection),
            Math.abs(r.lowRejection - r.predLowRejection),
          ];
        }),
      ),
    );
  const predictionGapLong = predictionGapOf('long');
  const predictionGapShort = predictionGapOf('short');
  claim(predictionGapLong < 0.015, 'the analysis predicts DiffTry and uniform');

  // Mild overload: the first overloaded point.
  const mild = overloaded[0] ?? gammaLows[0];
  const mildOverall = (v: Variant['key'], s: Subject) => overallRejection(at(v, s, mild));
  claim(
    mildOverall('long', 'uniform') < mildOverall('long', 'difftry') &&
      mildOverall('long', 'difftry') < mildOverall('long', 'no-retries'),
    'at mild overload with the long delay, uniform limits lose fewest requests overall',
  );
  claim(
    Math.abs(mildOverall('short', 'uniform') - mildOverall('short', 'no-retries')) < 0.005,
    'at mild overload with the short backoff, retries recover nothing overall',
  );

  const budgets = [...CLASS_UNAWARE_BUDGETS, 'class-budget' as const];
  claim(
    both.every((v) =>
      budgets.every((s) => at(v, s).attemptsPerRequest < at(v, 'difftry').attemptsPerRequest),
    ),
    'every budget sends fewer attempts than DiffTry at the heaviest point',
  );
  const sreAbove = points((g) =>
    overloaded.includes(g)
      ? at('long', 'sre-throttle', g).attemptsPerRequest >
        at('long', 'difftry', g).attemptsPerRequest
      : false,
  );
  const steadyBudgets = ['budget-finagle', 'budget-grpc', 'budget-envoy', 'class-budget'] as const;
  const steadyExceptions = both.flatMap((v) =>
    overloaded.flatMap((g) =>
      steadyBudgets
        .filter((s) => at(v, s, g).attemptsPerRequest >= at(v, 'difftry', g).attemptsPerRequest)
        .map(
          (s) =>
            `${STRATEGY_INFO[s].label} at γ_low = ${g}, ${VARIANTS.find((x) => x.key === v)?.short} ` +
            `(${fixed(at(v, s, g).attemptsPerRequest)} against ${fixed(at(v, 'difftry', g).attemptsPerRequest)})`,
        ),
    ),
  );
  claim(
    steadyExceptions.length <= 2,
    'the Finagle, gRPC, Envoy and class-aware budgets send fewer attempts than DiffTry nearly everywhere',
  );
  claim(
    d('budget-grpc').highFrontendRetries < 0.005 && d('budget-grpc').lowFrontendRetries < 0.005,
    'the gRPC throttle is closed at the saturated frontend',
  );
  claim(
    both.every(
      (v) =>
        Math.abs(at(v, 'budget-grpc').attemptsPerRequest - at(v, 'no-retries').attemptsPerRequest) <
          0.02 &&
        Math.abs(at(v, 'budget-grpc').highLatencyP99 - at(v, 'no-retries').highLatencyP99) < 0.05,
    ),
    'the gRPC throttle comes down to no retries at the heaviest point',
  );
  claim(
    both.every((v) =>
      CLASS_UNAWARE_BUDGETS.every((s) => at(v, s).highLatencyP99 < at(v, 'difftry').highLatencyP99),
    ),
    'the class-unaware budgets have a shorter high-class p99 than DiffTry at the heaviest point',
  );
  claim(
    everywhere((v, g) =>
      CLASS_UNAWARE_BUDGETS.every(
        (s) => at(v, s, g).lowRejection < at(v, 'difftry', g).lowRejection,
      ),
    ),
    'the low class fares better under every class-unaware budget than under DiffTry',
  );
  claim(
    everywhere(
      (v, g) => at(v, 'class-budget', g).highRejection <= at(v, 'difftry', g).highRejection,
    ),
    'the class-aware budget protects the high class at least as well as DiffTry (5, 1)',
  );
  claim(
    everywhere(
      (v, g) =>
        at(v, 'class-budget', g).attemptsPerRequest < at(v, 'difftry', g).attemptsPerRequest,
    ),
    'the class-aware budget sends fewer attempts than DiffTry (5, 1) at every overload',
  );
  claim(
    both.every((v) => at(v, 'class-budget').lowFrontendRetries < 0.05),
    'the class-aware budget stops low-class retries at the saturated frontend',
  );
  claim(
    both.every((v) => at(v, 'difftry-5-0').highRejection < at(v, 'class-budget').highRejection),
    'DiffTry (5, 0) protects the high class better than the class-aware budget',
  );
  claim(
    at('short', 'class-budget').highRejection > at('long', 'class-budget').highRejection &&
      at('short', 'difftry-5-0').highFrontendRetries >
        at('long', 'difftry-5-0').highFrontendRetries &&
      Math.abs(
        at('short', 'class-budget').highFrontendRetries -
          at('long', 'class-budget').highFrontendRetries,
      ) < 0.1,
    'the class-aware budget caps the high class’s retries whatever the delay',
  );
  claim(
    Math.abs(
      at('long', 'class-budget', mild).lowRejection - at('long', 'difftry-5-0', mild).lowRejection,
    ) <
      at('long', 'class-budget', mild).lowRejectionCi95 +
        at('long', 'difftry-5-0', mild).lowRejectionCi95,
    'at mild overload the class-aware budget’s low-class retries buy nothing measurable',
  );

  const allowance =
    RATIO_BUDGET_DEFAULTS.minRetriesPerSec +
    RATIO_BUDGET_DEFAULTS.percentCanRetry * (gammaHigh + G);
  const cb = d('class-budget');
  const cbShort = at('short', 'class-budget');
  const dt = d('difftry');
  const dtShort = at('short', 'difftry');
  const d50 = d('difftry-5-0');
  const d50Short = at('short', 'difftry-5-0');
  const none = d('no-retries');
  const uni = d('uniform');
  const sh = (s: Subject) => shares('long', s);
  const sec = (x: number) => `${fixed(x)} s`;
  const budgetList = (value: (r: StrategyRow) => string, v: Variant['key'] = 'long') =>
    CLASS_UNAWARE_BUDGETS.map((s) => `${STRATEGY_INFO[s].label} ${value(at(v, s))}`).join(', ');

  const out: string[] = [
    '## Where DiffTry wins and where a budget does better',
    '',
    'Figures at the heaviest point (γ_low = 250, long delay) unless said otherwise; the tables ' +
      'above and below hold the rest.',
    '',
    '**What no strategy changes.** At γ_low = 250 the frontend is offered 300 requests/s for a ' +
      'capacity of 143. Whatever the clients do, it stays busy and completes about 143 requests/s, ' +
      `so over both classes together every strategy and both references reject ${span(allOverall)} ` +
      'of the requests, with either delay. Retries cannot add capacity: a strategy decides only ' +
      '*whose* requests are among the rejected, and how many wasted attempts and how much waiting ' +
      'it takes. Which class wins is set by the attempt stream: the frontend admits an attempt ' +
      'whatever its class, so each class completes about its share of the attempts that reach the ' +
      `frontend. The high class sends ${pct(sh('no-retries').attempts)} of them with no retries, ` +
      `${pct(sh('uniform').attempts)} under uniform limits, ${pct(sh('difftry').attempts)} under ` +
      `DiffTry and ${pct(sh('class-budget').attempts)} under the class-aware budget, and ` +
      `completes ${pct(sh('no-retries').completions)}, ${pct(sh('uniform').completions)}, ` +
      `${pct(sh('difftry').completions)} and ${pct(sh('class-budget').completions)} of the ` +
      `completions (for every strategy and delay the two shares agree within ` +
      `${(100 * shareGap).toFixed(1)} points).`,
    '',
    '**DiffTry wins: the high class, against uniform limits and every class-unaware budget.** ' +
      `DiffTry rejects ${pct(dt.highRejection)} of the high class, against ` +
      `${pct(uni.highRejection)} under uniform limits and ` +
      `${span(unaware.map((r) => r.highRejection))} under the Finagle, gRPC, Envoy and SRE ` +
      `budgets (the analysis predicts ${pct(dt.predHighRejection)}). Over the sweep its ` +
      'high-class rejection is lower than under uniform limits, every class-unaware budget and ' +
      `no retries at every overloaded point (${range(overloaded)}), with both delays. The four ` +
      'class-unaware budgets do nothing ' +
      'for the high class at any load: at every overloaded point their high- and low-class ' +
      `rejections lie within ${(100 * unawareGap).toFixed(1)} points of each other and of ` +
      `uniform’s, and at γ_low = 250 they equal no retries at all (${pct(none.highRejection)}). ` +
      'The reason: a budget limits how many retries go, not whose. The retries it lets through ' +
      'come from both classes in proportion to their failures, so each class keeps its share of ' +
      'the attempts and with it its share of the completions. DiffTry gives the low class one ' +
      'retry per hop against the high class’s five, so the high class’s share of the attempts ' +
      'rises, and its share of the capacity with it. DiffTry does this with no shared state ' +
      '(fixed limits per class, decided per request), and its outcome can be predicted: the ' +
      'analysis lies within ' +
      `${(100 * predictionGapLong).toFixed(1)} points of the simulated rejections of DiffTry and ` +
      `uniform at every point with the long delay, and within ` +
      `${(100 * predictionGapShort).toFixed(1)} with the short backoff, whose retries it does ` +
      'not model. The budgets have no such model.',
    '',
    '**DiffTry against uniform limits: less load as well.** With the high class’s limit ' +
      `unchanged, DiffTry sends ${fixed(dt.attemptsPerRequest)} attempts per request against ` +
      `${fixed(uni.attemptsPerRequest)}: the low class retries up to once per hop instead of five ` +
      'times. Besides the low class’s fate (below), uniform limits do better than DiffTry at one ' +
      `point: at mild overload with the long delay (γ_low = ${mild}, ρ ≈ 1.05) they lose the ` +
      'fewest requests over both classes ' +
      `(${pct(mildOverall('long', 'uniform'))}, against ${pct(mildOverall('long', 'difftry'))} ` +
      `under DiffTry and ${pct(mildOverall('long', 'no-retries'))} with no retries): a retry ` +
      '2 s later usually outlives the burst that rejected it and finds room. DiffTry gives that ' +
      'up for the low ' +
      `class (${pct(at('long', 'difftry', mild).lowRejection)} against ` +
      `${pct(at('long', 'uniform', mild).lowRejection)}). With the 25 ms backoff the retry lands ` +
      `in the same burst and the gain is gone (${pct(mildOverall('short', 'uniform'))} against ` +
      `${pct(mildOverall('short', 'no-retries'))} with no retries).`,
    '',
    '**A budget does better: load.** At γ_low = 250 every budget sends fewer attempts per ' +
      `request than DiffTry’s ${fixed(dt.attemptsPerRequest)}: ` +
      `${budgetList((r) => fixed(r.attemptsPerRequest))}, class-aware ` +
      `${fixed(cb.attemptsPerRequest)} (no retries: ${fixed(none.attemptsPerRequest)}). At the ` +
      `frontend DiffTry still retries ${fixed(dt.highFrontendRetries)} times per high-class and ` +
      `${fixed(dt.lowFrontendRetries)} per low-class request, because its limits are fixed: ` +
      'however overloaded, each request may use its k retries at every hop. The budgets tie ' +
      'retries to what they see. Finagle allows 20 % of the last 10 s’s requests plus 10 ' +
      `retries/s, ${fixed(d('budget-finagle').highFrontendRetries)} retries per request at the ` +
      'frontend. The gRPC throttle loses a token per failed attempt and regains 0.1 per success, ' +
      'and retries only above half its tokens, so at a frontend that rejects about half the ' +
      `attempts it stays closed (${fixed(d('budget-grpc').highFrontendRetries)} retries per ` +
      'request): there the gRPC throttle is the same as no retries, in rejection, attempts and ' +
      'latency. Envoy limits retries in flight to max(3, 20 % of active requests); a retry is in ' +
      'flight for its whole delay, so with 2 s delays few fit ' +
      `(${fixed(d('budget-envoy').highFrontendRetries)} per request), with the 25 ms backoff ` +
      `more (${fixed(at('short', 'budget-envoy').highFrontendRetries)}). The SRE throttle (K = 2) ` +
      'refuses retries only once fewer than half the attempts are accepted, so it lets ' +
      `${fixed(d('sre-throttle').highFrontendRetries)} retries per request through at the ` +
      'frontend and, at moderate overload, more attempts than DiffTry ' +
      `(${sreAbove.length > 0 ? range(sreAbove) : 'nowhere'} with the long delay). The Finagle, ` +
      'gRPC, Envoy and class-aware budgets send fewer attempts than DiffTry at every overloaded ' +
      'point with both delays' +
      (steadyExceptions.length === 0 ? '.' : `, except ${steadyExceptions.join(' and ')}.`),
    '',
    '**A budget does better: the tail latency of what completes.** The high class’s p99 under ' +
      `DiffTry is ${sec(dt.highLatencyP99)}, against ${budgetList((r) => sec(r.highLatencyP99))} ` +
      `and ${sec(none.highLatencyP99)} with no retries (uniform: ${sec(uni.highLatencyP99)}). ` +
      'Read it with the rejections: only completed requests have a latency, and a completed ' +
      'high-class request under DiffTry is often one that waited through several 2 s retry ' +
      'delays — the very requests a budget rejects instead. Fewer retries buy a shorter tail ' +
      'with more rejections. With the 25 ms backoff the gap is small: ' +
      `${sec(dtShort.highLatencyP99)} for DiffTry against ` +
      `${span(
        CLASS_UNAWARE_BUDGETS.map((s) => at('short', s).highLatencyP99),
        1,
        2,
        ' s',
      )} for the class-unaware budgets.`,
    '',
    '**A budget does better: the low class.** The frontend’s capacity is fixed, so what the high ' +
      'class gains the low class loses: the low class is rejected ' +
      `${pct(dt.lowRejection)} under DiffTry against ` +
      `${span(unaware.map((r) => r.lowRejection))} under the class-unaware budgets, and more ` +
      'under DiffTry at every overloaded point with both delays. If the classes are not of ' +
      'different value, a budget is the better choice on these figures: the same total ' +
      'rejection, fewer attempts, a shorter tail.',
    '',
    '**The class-aware budget beats DiffTry (5, 1) at its own game here.** It rejects ' +
      `${pct(cb.highRejection)} of the high class (${pct(cbShort.highRejection)} with the short ` +
      `backoff) against DiffTry’s ${pct(dt.highRejection)} (${pct(dtShort.highRejection)}), ` +
      `with ${fixed(cb.attemptsPerRequest)} attempts per request against ` +
      `${fixed(dt.attemptsPerRequest)}; its low class pays a little more ` +
      `(${pct(cb.lowRejection)} against ${pct(dt.lowRejection)}). At every overloaded point and ` +
      'with both delays it protects the high class at least as well as DiffTry, with fewer ' +
      'attempts. The mechanism: one allowance per hop, of which the low class may spend only ' +
      `the first half. At the frontend the allowance is ${fixed(allowance, 0)} retries/s ` +
      `(${RATIO_BUDGET_DEFAULTS.minRetriesPerSec}/s plus ` +
      `${100 * RATIO_BUDGET_DEFAULTS.percentCanRetry} % of ${gammaHigh + G} requests/s), ` +
      `${fixed(allowance / gammaHigh)} per high-class request; the high class’s retries ` +
      `(${fixed(cb.highFrontendRetries)} per request) spend nearly all of it, so the low class ` +
      `retries ${fixed(cb.lowFrontendRetries)} times per request there: under saturation the ` +
      'budget switches low-class retries off, where DiffTry (5, 1) still allows one ' +
      `(${fixed(dt.lowFrontendRetries)} per request). The high class retries less than under ` +
      `DiffTry (${fixed(cb.highFrontendRetries)} against ${fixed(dt.highFrontendRetries)} per ` +
      'request) but competes with far fewer low-class attempts.',
    '',
    '**…and DiffTry (5, 0) beats the class-aware budget.** The edge comes from the low class’s ' +
      'limit, not from the budget: DiffTry with k = (5, 0), the reference row, rejects ' +
      `${pct(d50.highRejection)} of the high class (${pct(d50Short.highRejection)} with the ` +
      `short backoff) and ${pct(d50.lowRejection)} of the low, with ` +
      `${fixed(d50.attemptsPerRequest)} attempts per request and no shared state. The budget ` +
      'caps the high class’s retries too, at its allowance: with the short backoff it retries ' +
      `about as often as with the long delay (${fixed(cbShort.highFrontendRetries)} against ` +
      `${fixed(cb.highFrontendRetries)} per request at the frontend) but rejects more ` +
      `(${pct(cbShort.highRejection)} against ${pct(cb.highRejection)}), while DiffTry (5, 0) ` +
      `retries more (${fixed(d50Short.highFrontendRetries)} against ` +
      `${fixed(d50.highFrontendRetries)}) and loses less; fast retries likely land while the ` +
      'queue that rejected them is still full, and the budget cannot make up for them. What ' +
      'k = (5, 0) gives up is every low-class retry. The class-aware budget lets some through as ' +
      `the overload eases (${fixed(at('long', 'class-budget', mild).lowFrontendRetries)} per ` +
      `request at γ_low = ${mild}), but on these figures that buys the low class nothing ` +
      `measurable: ${pct(at('long', 'class-budget', mild).lowRejection)} against ` +
      `${pct(at('long', 'difftry-5-0', mild).lowRejection)} under DiffTry (5, 0) there ` +
      `(${pct(at('long', 'difftry', mild).lowRejection)} under DiffTry (5, 1)).`,
    '',
    '**In short.** DiffTry wins on the high class’s rejection against uniform limits and against ' +
      'every class-unaware budget (Finagle, gRPC, Envoy, SRE), at every overloaded point and with both ' +
      'delays, and it is the one strategy here whose figures the analysis predicts. The budgets ' +
      'win on load (attempts per request), on the tail latency of completed requests and on the ' +
      'low class’s fate; at saturation the gRPC throttle comes down to no retries at all, and ' +
      'Envoy’s budget with the long delay nearly so. The class-aware budget takes the best of ' +
      'both on these ' +
      'figures — more protection for the high class than DiffTry (5, 1), with fewer attempts — ' +
      'and DiffTry does better still only by turning the low class’s retries off, k = (5, 0).',
    '',
    '**What these figures do not show.** One budget per hop stands for a single client instance ' +
      'per service; with n instances each has its own reserve (Finagle’s 10 retries/s, Envoy’s 3 ' +
      'retries in flight), so the budgets get looser as a service scales out, while DiffTry’s ' +
      'limits do not depend on it. The budgets run with their default options; other options ' +
      'move them along the load/latency trade-off. The overload here is steady Poisson traffic ' +
      'at one bottleneck; retry budgets were designed against retry storms after transient ' +
      'failures, which this sweep does not test. Latencies are dominated by the retry delays.',
    '',
  ];
  if (failed.length > 0) {
    out.push(
      '> **Check failed on this run** — the text above claims what these figures do not show: ' +
        `${failed.join('; ')}. Revise \`strategiesComparison()\` in src/experiments/strategies/strategiesComparison.ts.`,
      '',
    );
  }
  return { lines: out, failed };
}
