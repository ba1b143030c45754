import './network.css';
import { isSpecError, type NetworkSpec, parseNetwork } from 'difftry/config';
import type { SweptParameter } from 'difftry/model';
import { branchesText } from 'difftry/report';
import { rangeSlider } from '../shell/slider.js';
import type { View, ViewContext } from '../shell/ViewContext.js';
import { make, makeSvg, panel, row } from './elements.js';
import { type EndToEndFigures, endToEndFigures } from './endToEndFigures.js';
import { layoutGraph } from './graphLayout.js';
import { drawGraphLegend } from './graphLegend.js';
import { drawGraph, type GraphView } from './graphView.js';
import {
  entryServiceIndex,
  fileParameters,
  type NetworkParameters,
  withParameters,
} from './NetworkParameters.js';
import { networkGraph } from './networkGraph.js';
import {
  DEFAULT_EXAMPLE,
  EXAMPLE_NAMES,
  exampleNamed,
  exampleNetwork,
  type NetworkText,
  serverNetwork,
} from './networkSources.js';
import { type ParameterSlot, parameterSlots } from './parameterSlots.js';
import { parametersFromUrl, parameterUrlValues } from './parameterUrl.js';
import { simulationControls } from './simulationControls.js';
import { type NetworkSolution, solveNetwork } from './solveNetwork.js';
import { createSweepChart, type SweepChart } from './sweepChart.js';
import { predictSweep, type SweepPrediction } from './sweepPrediction.js';
import { sweepValues } from './sweepValues.js';

/** Where the network on show came from, which decides what the URL can hold of it. */
type NetworkOrigin =
  | { readonly kind: 'example'; readonly name: string }
  /** `difftry ui FILE`: the server gives it again on a reload (`?file=`). */
  | { readonly kind: 'server'; readonly fileName: string }
  /** Dropped or chosen in the page: no link can hold it. */
  | { readonly kind: 'dropped'; readonly fileName: string };

/** The network on show and everything built for it. */
interface Shown {
  readonly network: NetworkSpec;
  readonly slots: readonly ParameterSlot[];
  parameters: NetworkParameters;
  solution: NetworkSolution;
  readonly figures: EndToEndFigures;
  /** Drawn once the layout is done. */
  graph?: GraphView;
  readonly sweep: {
    readonly parameter: SweptParameter;
    readonly values: readonly number[];
    /** `frontend.low`, as `--sweep` names it. */
    readonly target: string;
    /** `γ low at frontend`. */
    readonly rate: string;
  };
  readonly chart: SweepChart;
  /** The chart's prediction, once made (it waits for the sliders to rest). */
  prediction?: SweepPrediction;
}

/** Waits this long after the last slider event before re-predicting the sweep chart, ms. */
const SWEEP_DEBOUNCE_MS = 150;

let shownHandler: (() => void) | undefined;

/**
 * The Network view (issue 17): pick a built-in example or drop a network file, see its services
 * laid out (coloured by ρ, edges as wide as their attempts per second), move each class's
 * arrival rate and retry limit and see the analysis re-solved on every event, and the DiffTry
 * paper's Figure 5 for the network: predicted rejection against the swept rate of the lowest
 * class, DiffTry against uniform limits, with simulated points from a worker on demand.
 */
export const networkView: View = {
  mount(root, context) {
    shownHandler = mountNetworkView(root, context);
  },
  shown() {
    shownHandler?.();
  },
};

/** Builds the view into `root`; returns what to do when it is shown again. */
function mountNetworkView(root: HTMLElement, context: ViewContext): () => void {
  const { url } = context;
  root.classList.add('network-view');

  // The source: an example or a file, where it came from, why one was refused.
  const picker = make('select', { 'data-testid': 'example-picker' });
  const fileOption = make('option', { value: '' });
  picker.append(fileOption, ...EXAMPLE_NAMES.map((name) => make('option', { value: name }, name)));
  const fileInput = make('input', {
    type: 'file',
    accept: '.yaml,.yml,.json',
    'data-testid': 'file-input',
  });
  const origin = make('p', { class: 'muted network-origin', 'data-testid': 'network-origin' });
  const fileError = make('p', { class: 'error', role: 'alert', 'data-testid': 'file-error' });
  const sourcePanel = panel('Network');
  sourcePanel.append(
    row(
      field('Example', picker),
      field('or a file (YAML or JSON), also by dropping it on this view', fileInput),
    ),
    origin,
    fileError,
  );

  // The graph beside the sliders and the end-to-end figures.
  const graphSvg = makeSvg('svg', { class: 'network-graph', 'data-testid': 'network-graph' });
  const legendSvg = makeSvg('svg');
  const graphPanel = panel('Services');
  graphPanel.classList.add('network-graph-panel');
  graphPanel.append(graphSvg, legendSvg);
  const sliders = make('div', { class: 'controls' });
  const figuresBox = make('div');
  const controlsPanel = panel('Parameters');
  controlsPanel.classList.add('network-controls');
  controlsPanel.append(sliders, figuresBox);

  // The sweep chart and its simulation.
  const sweepPanel = panel('Sweep');
  const sweepHeading = sweepPanel.querySelector('h2') as HTMLHeadingElement;
  const simulation = simulationControls({
    request: () =>
      shown === undefined
        ? undefined
        : {
            network: withParameters(shown.network, shown.parameters),
            parameter: shown.sweep.parameter,
            values: shown.sweep.values,
            configurations: (currentPrediction(shown)?.configurations ?? []).map((c) => c.key),
          },
    onPoints: (points) => shown?.chart.setSimulation(points),
  });
  const chartBox = make('div', { class: 'network-sweep' });
  const sweepSummary = make('p', { class: 'muted', 'data-testid': 'sweep-summary' });
  sweepPanel.append(simulation.element, chartBox, sweepSummary);

  root.append(sourcePanel, row(graphPanel, controlsPanel), sweepPanel);

  let shown: Shown | undefined;
  let layoutToken = 0;
  let sweepTimer: ReturnType<typeof setTimeout> | undefined;

  /** Shows a network from its text, or the error that refuses it (keeping the one on show). */
  function load(source: NetworkText, from: NetworkOrigin, readUrl: boolean): boolean {
    let network: NetworkSpec;
    let slots: ParameterSlot[];
    let parameters: NetworkParameters;
    let solution: NetworkSolution;
    try {
      network = parseNetwork(source.text, source.fileName);
      slots = parameterSlots(network);
      parameters = readUrl
        ? parametersFromUrl(network, slots, (key) => url.get(key))
        : fileParameters(network);
      solution = solveNetwork(network, parameters);
    } catch (error) {
      fileError.textContent = errorLine(error, source.fileName);
      return false;
    }
    fileError.textContent = '';
    simulation.reset('');
    showOrigin(source, from);
    url.set({
      ...Object.fromEntries((shown?.slots ?? []).map((slot) => [slot.key, undefined])),
      example: from.kind === 'example' ? from.name : undefined,
      file: from.kind === 'server' ? from.fileName : undefined,
      ...parameterUrlValues(slots, parameters),
    });

    const entryIndex = entryServiceIndex(network);
    const entry = network.services[entryIndex]?.name ?? '';
    const lowest = network.classes[network.classes.length - 1]?.name ?? '';
    const swept = slots.find((slot) => slot.swept) as ParameterSlot;
    const rate = `γ ${lowest} at ${entry}`;
    sweepHeading.textContent = `Rejection against ${rate}`;
    chartBox.replaceChildren();
    const classes = network.classes.map((c) => c.name);
    const chart = createSweepChart(chartBox, {
      xLabel: `${rate} (requests/s)`,
      classes,
      xMax: swept.range.max,
    });
    chart.redraw();
    const figures = endToEndFigures(classes);
    figuresBox.replaceChildren(figures.element);
    shown = {
      network,
      slots,
      parameters,
      solution,
      figures,
      sweep: {
        parameter: { serviceIndex: entryIndex, field: classes.length - 1 },
        values: sweepValues(swept.range),
        target: `${entry}.${lowest}`,
        rate,
      },
      chart,
    };
    buildSliders(shown);
    render(shown);
    scheduleSweep(0);
    void layOut(shown);
    return true;
  }

  /** Says where the network came from, in the picker and under it. */
  function showOrigin(source: NetworkText, from: NetworkOrigin): void {
    picker.value = from.kind === 'example' ? from.name : '';
    fileOption.textContent = from.kind === 'example' ? '— a file —' : `— ${from.fileName} —`;
    origin.textContent =
      from.kind === 'dropped'
        ? `${from.fileName}, opened in this page: a link to this page cannot hold it (no example in the URL).`
        : `${source.fileName}${from.kind === 'example' ? `, the built-in example ${from.name}` : ', given to difftry ui'}.`;
  }

  /** Lays the graph out (once per network) and draws it, unless another network came since. */
  async function layOut(target: Shown): Promise<void> {
    const token = ++layoutToken;
    graphSvg.removeAttribute('data-state');
    const graph = networkGraph(target.solution.model);
    const layout = await layoutGraph(graph);
    if (token !== layoutToken) return;
    target.graph = drawGraph(graphSvg, graph, layout, target.solution);
    graphSvg.setAttribute('data-state', 'ready');
  }

  function buildSliders(target: Shown): void {
    sliders.replaceChildren(
      ...target.slots.map(
        (slot) =>
          rangeSlider({
            testId: slot.testId,
            label: slot.label,
            ...slot.range,
            value: slot.value(target.parameters),
            format: slot.format,
            onInput: (value) => onSlider(target, slot, value),
          }).element,
      ),
    );
  }

  /** One slider event: re-solve and redraw (measured as `network-update`), then the URL. */
  function onSlider(target: Shown, slot: ParameterSlot, value: number): void {
    const start = performance.now();
    target.parameters = slot.with(target.parameters, value);
    target.solution = solveNetwork(target.network, target.parameters);
    render(target);
    performance.measure('network-update', { start });
    url.set({ [slot.key]: value === slot.fileValue ? undefined : value });
    // The swept rate only moves the chart's marker; anything else changes the whole sweep.
    if (slot.swept) return;
    simulation.reset(simulation.busy() ? 'The parameters changed: simulate again.' : '');
    scheduleSweep(SWEEP_DEBOUNCE_MS);
  }

  /** Writes the solution into the page: figures, graph, the chart's marker. */
  function render(target: Shown): void {
    target.figures.update(target.solution.report);
    target.graph?.update(target.solution);
    const swept = target.slots.find((slot) => slot.swept);
    if (swept !== undefined) target.chart.setMarker(swept.value(target.parameters));
  }

  function scheduleSweep(delayMs: number): void {
    clearTimeout(sweepTimer);
    sweepTimer = setTimeout(() => {
      sweepTimer = undefined;
      if (shown !== undefined) predict(shown);
    }, delayMs);
  }

  /** The chart's prediction for the parameters now, made at once if a slider's wait is on. */
  function currentPrediction(target: Shown): SweepPrediction | undefined {
    if (sweepTimer !== undefined) {
      clearTimeout(sweepTimer);
      sweepTimer = undefined;
      predict(target);
    }
    return target.prediction;
  }

  /** Predicts the sweep chart for the parameters now, and draws it. */
  function predict(target: Shown): void {
    const { network, parameters, sweep, chart } = target;
    const prediction = predictSweep(
      withParameters(network, parameters),
      sweep.parameter,
      sweep.values,
    );
    target.prediction = prediction;
    chart.setPrediction(prediction);
    const compared = prediction.configurations.length > 1 ? ': DiffTry against uniform limits' : '';
    sweepHeading.textContent = `Rejection against ${sweep.rate}${compared}`;
    // What each configuration's branches do, said once for the configurations alike.
    const said = new Map<string, string[]>();
    for (const c of prediction.configurations) {
      if (c.branches === undefined) continue;
      const text = branchesText(sweep.target, true, c.branches);
      said.set(text, [...(said.get(text) ?? []), c.label]);
    }
    sweepSummary.textContent = [...said]
      .map(([text, labels]) => `${labels.join(' and ')}: ${text}.`)
      .join(' ');
  }

  // Opening networks: the picker, the file input, a drop anywhere on the view.
  picker.addEventListener('change', () => {
    const name = picker.value;
    void exampleNetwork(name).then((source) => {
      if (source !== undefined) load(source, { kind: 'example', name }, false);
    });
  });
  const openFile = async (file: File | undefined) => {
    if (file === undefined) return;
    const source = { fileName: file.name, text: await file.text() };
    load(source, { kind: 'dropped', fileName: file.name }, false);
  };
  fileInput.addEventListener('change', () => {
    void openFile(fileInput.files?.[0]).finally(() => {
      fileInput.value = '';
    });
  });
  root.addEventListener('dragover', (event) => {
    event.preventDefault();
    root.classList.add('network-dropping');
  });
  root.addEventListener('dragleave', () => root.classList.remove('network-dropping'));
  root.addEventListener('drop', (event) => {
    event.preventDefault();
    root.classList.remove('network-dropping');
    void openFile(event.dataTransfer?.files[0]);
  });

  context.onThemeChange(() => {
    shown?.graph?.recolor();
    drawGraphLegend(legendSvg);
    shown?.chart.redraw();
  });
  let resizeFrame = 0;
  window.addEventListener('resize', () => {
    cancelAnimationFrame(resizeFrame);
    resizeFrame = requestAnimationFrame(() => shown?.chart.redraw());
  });
  drawGraphLegend(legendSvg);
  void openFirst();

  /** The network the URL names (`?example=`), else the server's (`difftry ui FILE`), else hotel. */
  async function openFirst(): Promise<void> {
    const asked = url.get('example');
    if (asked !== undefined) {
      const source = await exampleNetwork(asked);
      if (source !== undefined && load(source, { kind: 'example', name: asked }, true)) return;
      if (source === undefined) {
        fileError.textContent = `?example=${asked}: expected a built-in example (${EXAMPLE_NAMES.join(', ')})`;
      }
    } else {
      const source = await serverNetwork();
      if (source !== undefined) {
        const name = exampleNamed(source.fileName);
        const from: NetworkOrigin =
          name === undefined
            ? { kind: 'server', fileName: source.fileName }
            : { kind: 'example', name };
        if (load(source, from, true)) return;
      }
    }
    const fallback = (await exampleNetwork(DEFAULT_EXAMPLE)) as NetworkText;
    load(fallback, { kind: 'example', name: DEFAULT_EXAMPLE }, false);
  }

  return () => shown?.chart.redraw();
}

/** One line for a refused file: a SpecError's own (it names file:line:col), else file: message. */
function errorLine(error: unknown, fileName: string): string {
  if (isSpecError(error)) return error.message;
  return `${fileName}: ${error instanceof Error ? error.message : String(error)}`;
}

/** A labelled control of the source panel. */
function field(text: string, control: HTMLElement): HTMLLabelElement {
  const element = make('label', { class: 'network-source-field' });
  element.append(make('span', {}, text), control);
  return element;
}
