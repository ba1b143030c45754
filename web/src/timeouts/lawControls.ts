import { isSpecError, parseLatencySamples } from 'difftry/config';
import { empiricalLatency, type LatencyDistribution } from 'difftry/model';
import { rangeSlider } from '../shell/slider.js';
import { parametricLatency } from './parametricLatency.js';
import { picker } from './picker.js';
import { secondsText } from './secondsText.js';
import { type LawSettings, type ParametricLaw, SETTING_RANGES } from './timeoutsSettings.js';

/** Options of {@link lawControls}. */
export interface LawControlsOptions {
  /** The parametric law to start from. */
  readonly initial: LawSettings;
  /**
   * Called with the law to show: the sliders' (with their settings) or the uploaded sample's
   * estimate (`empiricalLatency`, as `difftry timeouts fit` makes it; settings undefined).
   */
  readonly onLaw: (law: LatencyDistribution, settings: LawSettings | undefined) => void;
}

/** Where the latency law comes from: a parametric law, or the uploaded file. */
type LawSource = ParametricLaw | 'file';

/**
 * The latency law's controls: a picker (lognormal, mixture of two lognormals, the uploaded
 * sample), the parametric laws' sliders, and a latency file input that reads the file as
 * `difftry timeouts fit` does (`parseLatencySamples`), showing a bad file's one-line error
 * in `latency-file-error` and keeping the law it had.
 */
export function lawControls(options: LawControlsOptions): HTMLElement {
  let settings = options.initial;
  let sampleLaw: LatencyDistribution | undefined;
  const element = document.createElement('div');
  element.className = 'timeouts-law controls';

  const sourcePicker = picker<LawSource>({
    testId: 'law-picker',
    label: 'Latency law',
    options: [
      { value: 'lognormal', text: 'lognormal' },
      { value: 'mixture', text: 'mixture of two lognormals' },
      { value: 'file', text: 'uploaded sample' },
    ],
    value: settings.kind,
    onPick: (source) => show(source),
  });
  const fileOption = sourcePicker.select.querySelector<HTMLOptionElement>('option[value="file"]');
  if (fileOption !== null) fileOption.disabled = true;

  const slider = (
    key: Exclude<keyof LawSettings, 'kind'>,
    testId: string,
    label: string,
    format?: (value: number) => string,
  ) =>
    rangeSlider({
      testId,
      label,
      ...SETTING_RANGES[key],
      value: settings[key],
      ...(format === undefined ? {} : { format }),
      onInput: (value) => {
        settings = { ...settings, [key]: value };
        options.onLaw(parametricLatency(settings), settings);
      },
    }).element;
  const slowPath = document.createElement('div');
  slowPath.className = 'controls';
  slowPath.append(
    slider('slowShare', 'law-slow-share', 'slow path share'),
    slider('median2S', 'law-median2', 'slow path median', secondsText),
    slider('sigma2', 'law-sigma2', 'slow path σ of ln'),
  );
  const parametric = document.createElement('div');
  parametric.className = 'controls';
  parametric.append(
    slider('medianS', 'law-median', 'median', secondsText),
    slider('sigma', 'law-sigma', 'σ of ln latency'),
    slowPath,
  );

  const fileLabel = document.createElement('label');
  fileLabel.className = 'timeouts-file';
  fileLabel.append('Latency file (seconds, one a line) ');
  const fileInput = document.createElement('input');
  fileInput.type = 'file';
  fileInput.accept = '.csv,.txt,text/csv,text/plain';
  fileInput.dataset.testid = 'latency-file';
  fileLabel.append(fileInput);
  const fileSummary = document.createElement('span');
  fileSummary.className = 'muted';
  fileSummary.dataset.testid = 'latency-file-summary';
  const fileError = document.createElement('div');
  fileError.className = 'error';
  fileError.dataset.testid = 'latency-file-error';
  fileError.setAttribute('role', 'alert');
  fileInput.addEventListener('change', async () => {
    const file = fileInput.files?.[0];
    if (file === undefined) return;
    const text = await file.text();
    // Picking the same file again (after fixing it) fires `change` again.
    fileInput.value = '';
    try {
      const samples = parseLatencySamples(text, file.name);
      const law = empiricalLatency(samples);
      sampleLaw = law;
      fileError.textContent = '';
      fileSummary.textContent = `${file.name}: ${samples.length} latencies from ${secondsText(law.minObserved)} to ${secondsText(law.maxObserved)}`;
      if (fileOption !== null) fileOption.disabled = false;
      show('file');
    } catch (error) {
      if (!(isSpecError(error) || error instanceof RangeError)) throw error;
      fileError.textContent = error.message;
    }
  });

  /** Shows the controls of one source and hands its law over. */
  const show = (source: LawSource) => {
    sourcePicker.select.value = source;
    parametric.hidden = source === 'file';
    slowPath.hidden = source !== 'mixture';
    if (source !== 'file') {
      settings = { ...settings, kind: source };
      options.onLaw(parametricLatency(settings), settings);
    } else if (sampleLaw !== undefined) {
      options.onLaw(sampleLaw, undefined);
    }
  };
  element.append(sourcePicker.element, parametric, fileLabel, fileSummary, fileError);
  slowPath.hidden = settings.kind !== 'mixture';
  return element;
}
