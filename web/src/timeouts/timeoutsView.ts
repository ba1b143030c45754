import {
  PAPER_TIME_FRACTIONS,
  TIMEOUT_EVAL_STRATEGIES,
  TIMEOUT_SCENARIO_LABELS,
  TIMEOUT_SCENARIO_NAMES,
  type TimeoutEvalStrategy,
  type TimeoutScenarioName,
} from 'difftry/experiments';
import {
  type AttemptCost,
  ceilingTimeout,
  type LatencyDistribution,
  linearCost,
  type OptimizedTimeouts,
  optimizeTimeouts,
  singleTimeout,
} from 'difftry/model';
import { fixed, percent, significant } from 'difftry/report';
import { rangeSlider } from '../shell/slider.js';
import type { View, ViewContext } from '../shell/ViewContext.js';
import { ladderFigure } from './ladderFigure.js';
import { lawControls } from './lawControls.js';
import { lawCurves } from './lawCurves.js';
import { markovFigure } from './markovFigure.js';
import { parametricLatency } from './parametricLatency.js';
import { picker } from './picker.js';
import {
  readTimeoutsSettings,
  SETTING_RANGES,
  type TimeoutsSettings,
  timeoutsUrlValues,
} from './timeoutsSettings.js';
import { timeoutTrace } from './timeoutTrace.js';
import { handleTimeout, type TimeRange, timeRange } from './timeRange.js';
import { traceFigure } from './traceFigure.js';
import './timeouts.css';

/** Points each curve is sampled at across the time axis. */
const CURVE_POINTS = 400;
/** The URL is rewritten this long after the last change (a drag is not a hundred writes). */
const URL_WRITE_DELAY_MS = 250;

/**
 * The Timeouts view: the timeouts paper's three figures on a parametric latency law or an
 * uploaded sample. Fig 1, one attempt as a Markov chain (drag t); Fig 2, f, E(t) and the
 * Optimizer's search tree on one time axis (drag t_z, set depth and cost), with the ladder and
 * E_0 printed as `difftry timeouts fit` prints them; Fig 3, an 800-request trace of a strategy
 * on a scenario with its Time Fraction beside the paper's. Every setting is in the URL.
 */
export const timeoutsView: View = {
  mount(root, context) {
    mountTimeouts(root, context);
  },
};

function mountTimeouts(root: HTMLElement, context: ViewContext): void {
  let settings: TimeoutsSettings = readTimeoutsSettings(context.url);
  let urlWrite: ReturnType<typeof setTimeout> | undefined;
  /** Keeps one setting; the URL is written once the changes pause. */
  const update = <Key extends keyof TimeoutsSettings>(key: Key, value: TimeoutsSettings[Key]) => {
    settings = { ...settings, [key]: value };
    clearTimeout(urlWrite);
    urlWrite = setTimeout(() => context.url.set(timeoutsUrlValues(settings)), URL_WRITE_DELAY_MS);
  };
  /** A control's handler: keeps the setting `key`, then redraws what depends on it. */
  const onChange =
    <Key extends keyof TimeoutsSettings>(key: Key, redraw: () => void) =>
    (value: TimeoutsSettings[Key]) => {
      update(key, value);
      redraw();
    };

  let shown = lawShown(parametricLatency(settings.law));
  let cost: AttemptCost = linearCost({ c1: settings.costSlope });
  let result: OptimizedTimeouts | undefined;
  let defaultMarkovT = 0;
  const tz = () => {
    const { range, defaultTz } = shown;
    return Math.min(range.upperS, Math.max(range.minS, settings.tzS ?? defaultTz));
  };
  const markovT = () => handleTimeout(settings.markovTS ?? defaultMarkovT, shown.range);

  const panel = (title: string, ...children: HTMLElement[]) => {
    const section = document.createElement('section');
    section.className = 'panel';
    const heading = document.createElement('h2');
    heading.textContent = title;
    section.append(heading, ...children);
    root.append(section);
    return section;
  };
  const readout = (testId: string) => {
    const span = document.createElement('span');
    span.dataset.testid = testId;
    return span;
  };
  const line = (...parts: (string | HTMLElement)[]) => {
    const p = document.createElement('p');
    p.className = 'timeouts-readout-line figure';
    p.append(...parts);
    return p;
  };

  panel(
    'Latency law',
    lawControls({
      initial: settings.law,
      onLaw: (next, lawSettings) => {
        if (lawSettings !== undefined) update('law', lawSettings);
        shown = lawShown(next);
        drawCurves();
      },
    }),
  );

  const markovPanel = panel('Fig 1 · One attempt with timeout t: a two-state Markov chain');
  const markov = markovFigure(markovPanel, {
    range: () => shown.range,
    value: markovT,
    onMove: onChange('markovTS', drawAttempt),
  });

  const sequenceText = readout('sequence');
  const e0Text = readout('e0');
  const singleText = readout('single-timeout');
  const singleEText = readout('single-e');
  const shorterText = readout('sequence-shorter');
  shorterText.className = 'muted';
  const ladderError = document.createElement('div');
  ladderError.className = 'error';
  ladderError.dataset.testid = 'ladder-error';
  const depthSlider = rangeSlider({
    testId: 'depth',
    label: 'depth (timeouts)',
    ...SETTING_RANGES.depth,
    value: settings.depth,
    onInput: onChange('depth', drawCurves),
  });
  const costSlider = rangeSlider({
    testId: 'cost',
    label: 'cost c (g = c·t)',
    ...SETTING_RANGES.costSlope,
    value: settings.costSlope,
    onInput: onChange('costSlope', drawCurves),
  });
  const sliders = document.createElement('div');
  sliders.className = 'controls';
  sliders.append(depthSlider.element, costSlider.element);
  const ladderPanel = panel(
    'Fig 2 · The optimal ladder t_0 … t_z: density, expected latency and the search tree',
    sliders,
    line('ladder t_0 … t_z: ', sequenceText, ' s ', shorterText),
    line(
      'E_0 = ',
      e0Text,
      ' s; best single repeated timeout: ',
      singleText,
      ' s, E = ',
      singleEText,
      ' s',
    ),
    ladderError,
  );
  const ladder = ladderFigure(ladderPanel, {
    range: () => shown.range,
    tz,
    onTzMove: onChange('tzS', solve),
  });

  const timeFractionText = readout('trace-time-fraction');
  const paperText = readout('trace-paper-time-fraction');
  const timeoutsText = readout('trace-timeouts');
  const scenarioPicker = picker<TimeoutScenarioName>({
    testId: 'scenario-picker',
    label: 'Scenario',
    options: TIMEOUT_SCENARIO_NAMES.map((value) => ({
      value,
      text: TIMEOUT_SCENARIO_LABELS[value],
    })),
    value: settings.scenario,
    onPick: onChange('scenario', drawTrace),
  });
  const strategyPicker = picker<TimeoutEvalStrategy>({
    testId: 'strategy-picker',
    label: 'Strategy',
    options: TIMEOUT_EVAL_STRATEGIES.map((value) => ({ value, text: value })),
    value: settings.strategy,
    onPick: onChange('strategy', drawTrace),
  });
  const pickers = document.createElement('div');
  pickers.className = 'row';
  pickers.append(scenarioPicker.element, strategyPicker.element);
  const tracePanel = panel(
    'Fig 3 · An 800-request trace (virtual time, seed 1, as timeouts eval --requests 800)',
    pickers,
    line('Time Fraction ', timeFractionText, ' (paper: ', paperText, '); timeouts: ', timeoutsText),
  );
  const trace = traceFigure(tracePanel);

  /** Redraws what depends on the law and the cost, then the ladder and the attempt. */
  function drawCurves(): void {
    cost = linearCost({ c1: settings.costSlope });
    const { law, range } = shown;
    const curves = lawCurves(law, cost, range.upperS, CURVE_POINTS);
    markov.drawLaw(curves, range);
    ladder.drawCurves(curves, range, settings.depth);
    solve();
    if (result !== undefined) defaultMarkovT = result.single.timeout;
    drawAttempt();
  }

  /** Re-solves the ladder for t_z and redraws it: the work of one t_z drag event. */
  function solve(): void {
    performance.mark('timeouts-update-start');
    try {
      result = optimizeTimeouts(shown.law, { depth: settings.depth, tz: tz(), cost });
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      ladderError.textContent = error.message;
      return;
    }
    ladderError.textContent = '';
    ladder.drawLadder(result);
    sequenceText.textContent = result.sequence.map((t) => significant(t)).join(', ');
    e0Text.textContent = significant(result.E0);
    singleText.textContent = significant(result.single.timeout);
    singleEText.textContent = significant(result.single.E);
    shorterText.textContent =
      result.sequence.length < settings.depth
        ? `(${result.sequence.length} of ${settings.depth} timeouts: no earlier timeout lowers E_0)`
        : '';
    performance.measure('timeouts-update', 'timeouts-update-start');
    performance.clearMarks('timeouts-update-start');
  }

  function drawAttempt(): void {
    const t = markovT();
    markov.drawAttempt(t, singleTimeout(shown.law, t, cost));
  }

  function drawTrace(): void {
    const run = timeoutTrace(settings.scenario, settings.strategy);
    trace.draw(run);
    const paper = PAPER_TIME_FRACTIONS[settings.scenario];
    timeFractionText.textContent = fixed(run.evaluation.timeFraction, 3);
    paperText.textContent = `Combined ${paper.combined}, exponential backoff ${paper.exponentialBackoff}`;
    timeoutsText.textContent = percent(run.evaluation.timeoutPercentage / 100);
  }

  const redrawLegends = () => {
    markov.redrawLegend();
    ladder.redrawLegend();
    trace.redrawLegend();
  };
  context.onThemeChange(redrawLegends);
  redrawLegends();
  drawCurves();
  drawTrace();
}

/** A law with what follows from it alone: the time range, and the default ceiling t_z (s). */
function lawShown(law: LatencyDistribution): {
  law: LatencyDistribution;
  range: TimeRange;
  defaultTz: number;
} {
  return { law, range: timeRange(law), defaultTz: ceilingTimeout(law) };
}
