import { basename } from 'node:path';
import { type Command, Option } from 'commander';
import { networkYaml } from '../config/networkYaml.js';
import { parseNetwork } from '../config/parseNetwork.js';
import { inferenceHeader } from '../traces/infer/inferenceHeader.js';
import { type InferOptions, inferNetwork, type WindowBound } from '../traces/infer/inferNetwork.js';
import type { TraceEvidence } from '../traces/infer/TraceEvidence.js';
import { DEFAULT_CLASS_SOURCE } from '../traces/spanReading.js';
import { storeTraceFiles } from '../traces/storeTraceFiles.js';
import { TraceFileError } from '../traces/TraceFileError.js';
import { TRACE_FORMATS, type TraceFormat } from '../traces/TraceSpan.js';
import type { Emit } from './CommandOutput.js';
import { integerIn } from './input.js';
import { checkOutputPath, writeOutputFiles } from './outputPath.js';
import { progressOnStderr } from './progress.js';
import { UsageError } from './UsageError.js';

/** Options of `difftry from-traces`, as the command line gives them. */
export interface FromTracesOptions {
  readonly format?: string;
  readonly classAttribute?: string;
  readonly classHeader?: string;
  readonly window?: string;
  readonly capacity?: readonly string[];
  readonly queue?: number;
  readonly classes?: string;
  readonly name?: string;
  readonly out?: string;
  readonly json?: boolean;
}

/** What the command prints: the network (YAML), or with `--json` the network and its evidence. */
export interface FromTracesResult {
  readonly stdout?: string;
  readonly network: unknown;
  readonly evidence: TraceEvidence;
}

/**
 * `difftry from-traces FILE…`: reads the trace files as streams, infers a network file
 * (docs/traces.md), checks it parses as one, and writes it to `--out` (or stdout). With `--json`,
 * stdout gets `{ network, evidence }` instead.
 *
 * @throws {UsageError} on a bad option; {@link TraceFileError} on a file it cannot use.
 */
export async function fromTracesCommand(
  files: readonly string[],
  options: FromTracesOptions,
  argv: readonly string[] = [],
): Promise<FromTracesResult> {
  const format = parseFormat(options.format);
  const inferOptions: InferOptions = {
    ...(options.window === undefined ? {} : { window: parseWindow(options.window) }),
    ...(options.capacity === undefined ? {} : { capacities: parseCapacities(options.capacity) }),
    ...(options.queue === undefined ? {} : { queue: options.queue }),
    ...(options.classes === undefined ? {} : { classes: parseClassList(options.classes) }),
    name: options.name ?? `from-traces ${files.map((f) => basename(f)).join(', ')}`,
  };
  if (options.out !== undefined) await checkOutputPath(options.out, '--out');
  const progress = progressOnStderr('from-traces', {
    delayMs: 2000,
    format: '{file}: {spans} spans read',
  });
  let store: Awaited<ReturnType<typeof storeTraceFiles>>;
  try {
    store = await storeTraceFiles(files, {
      ...(format === undefined ? {} : { format }),
      classSource: {
        attribute: options.classAttribute ?? DEFAULT_CLASS_SOURCE.attribute,
        header: options.classHeader ?? DEFAULT_CLASS_SOURCE.header,
      },
      onProgress: (file, spans) =>
        progress.update(0, { file: basename(file), spans: spans.toLocaleString('en-US') }),
    });
  } finally {
    progress.stop();
  }
  const { network, evidence } = inferFrom(files, () => inferNetwork(store, inferOptions));
  const command = ['difftry from-traces', ...argv].join(' ');
  const parsed = parseNetwork(JSON.stringify(network), 'the inferred network');
  const yaml = networkYaml(parsed, inferenceHeader(evidence, command));
  if (options.out !== undefined) {
    await writeOutputFiles([{ path: options.out, text: yaml }], '--out');
    process.stderr.write(
      `difftry: wrote ${options.out} (${evidence.services.length} services, ${network.classes.length} classes, from ${evidence.spans.toLocaleString('en-US')} spans)\n`,
    );
  }
  const stdout = options.json
    ? `${JSON.stringify({ network, evidence }, null, 2)}\n`
    : options.out === undefined
      ? yaml
      : undefined;
  return { ...(stdout === undefined ? {} : { stdout }), network, evidence };
}

/** The inference's refusals name the files they read, as the readers' do. */
function inferFrom<T>(files: readonly string[], infer: () => T): T {
  try {
    return infer();
  } catch (error) {
    if (error instanceof TraceFileError) {
      throw new TraceFileError(`${files.join(', ')}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

function parseFormat(text: string | undefined): TraceFormat | undefined {
  if (text === undefined) return undefined;
  if ((TRACE_FORMATS as readonly string[]).includes(text)) return text as TraceFormat;
  throw new UsageError(`--format: expected one of ${TRACE_FORMATS.join(', ')}, got "${text}"`);
}

/**
 * `--window FROM:TO`: each end seconds from the first span's start (`60:660`), or an ISO time
 * (`2026-12-05T10:00:00Z`); either may be left out (`60:`, `:600`).
 */
export function parseWindow(text: string): NonNullable<InferOptions['window']> {
  // ISO times hold colons: split at the colon that separates two ends.
  const split = splitWindow(text);
  if (split === undefined) {
    throw new UsageError(
      `--window: expected FROM:TO, each seconds from the first span or an ISO time, got "${text}"`,
    );
  }
  const [from, to] = split.map((part, k) => bound(part, k === 0 ? 'FROM' : 'TO', text));
  if (from === undefined && to === undefined) {
    throw new UsageError(`--window: give FROM, TO or both, got "${text}"`);
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

function splitWindow(text: string): [string, string] | undefined {
  for (let k = 0; k < text.length; k++) {
    if (text[k] !== ':') continue;
    const left = text.slice(0, k);
    const right = text.slice(k + 1);
    if (isEnd(left) && isEnd(right)) return [left, right];
  }
  return undefined;
}

const SECONDS = /^\s*\d+(\.\d+)?\s*$/;
const ISO = /^\s*\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})\s*$/;
const isEnd = (part: string) => part.trim() === '' || SECONDS.test(part) || ISO.test(part);

function bound(part: string, which: string, text: string): WindowBound | undefined {
  if (part.trim() === '') return undefined;
  if (SECONDS.test(part)) return { seconds: Number(part), relative: true };
  const ms = Date.parse(part.trim());
  if (Number.isNaN(ms)) {
    throw new UsageError(`--window: ${which} "${part}" is not a time, in "${text}"`);
  }
  return { seconds: ms / 1000, relative: false };
}

/** `--capacity SERVICE=N` (repeatable, or comma-separated). */
export function parseCapacities(texts: readonly string[]): Record<string, number> {
  const capacities: Record<string, number> = {};
  for (const part of texts.flatMap((t) => t.split(','))) {
    const match = /^\s*([^=]+?)\s*=\s*([0-9.eE+]+)\s*$/.exec(part);
    const value = match ? Number(match[2]) : Number.NaN;
    if (!match || !(value > 0) || !Number.isFinite(value)) {
      throw new UsageError(
        `--capacity: expected SERVICE=N with N a positive number of requests/s, got "${part}"`,
      );
    }
    capacities[match[1] as string] = value;
  }
  return capacities;
}

function parseClassList(text: string): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new UsageError(`--classes: expected NAME,NAME,…, got "${text}"`);
  return names;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Registers `difftry from-traces` on the CLI. */
export function registerFromTracesCommand(program: Command, emit: Emit): void {
  program
    .command('from-traces')
    .description(
      'infer a network file (services, calls, arrival rates, capacities, retries) from trace files',
    )
    .argument('<files...>', 'OTLP/JSON, Jaeger JSON or Zipkin v2 JSON files (JSON lines, .gz)')
    .option('--format <format>', `the files' format: ${TRACE_FORMATS.join(', ')} (default: found)`)
    .option(
      '--class-attribute <name>',
      `the span attribute naming the class (default ${DEFAULT_CLASS_SOURCE.attribute})`,
    )
    .option(
      '--class-header <name>',
      `else the request header carrying it (default ${DEFAULT_CLASS_SOURCE.header})`,
    )
    .option(
      '--window <from:to>',
      'measure over this window: seconds from the first span, or ISO times',
    )
    .option(
      '--capacity <service=n>',
      'a service capacity (requests/s), overriding the estimate',
      collect,
    )
    .addOption(
      new Option('--queue <m>', 'every service queue m (default 50)').argParser(
        integerIn('--queue', 1, 1_000_000),
      ),
    )
    .option('--classes <names>', 'the classes in priority order, highest first (a,b,c)')
    .option('--name <name>', "the network's name")
    .option('--out <file>', 'write the network file here instead of stdout')
    .option('--json', 'print the network and what it rests on as JSON')
    .action(async (files: string[], opts: FromTracesOptions, command: Command) => {
      const argv = [...files, ...optionWords(command)];
      const result = await fromTracesCommand(files, opts, argv);
      if (result.stdout !== undefined) emit({ stdout: result.stdout });
    });
}

/** The options given, as words, for the header's command line (all but `--out`, `--json`). */
function optionWords(command: Command): string[] {
  const words: string[] = [];
  for (const option of command.options) {
    const key = option.attributeName();
    const value = command.getOptionValue(key) as unknown;
    if (value === undefined || command.getOptionValueSource(key) !== 'cli') continue;
    // Where the output goes does not change it.
    if (key === 'out' || key === 'json') continue;
    const flag = option.long ?? option.short ?? key;
    if (value === true) words.push(flag);
    else for (const v of Array.isArray(value) ? value : [value]) words.push(flag, String(v));
  }
  return words;
}
