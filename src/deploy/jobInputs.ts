import { type KubernetesObject, objectMeta } from './kubernetesObject.js';

/** Where a Job's pods find the files the command was given, from the ConfigMap. */
export const JOB_INPUT_DIR = '/input';

/** The most a ConfigMap may hold (Kubernetes refuses more than 1 MiB). */
export const MOST_CONFIG_MAP_BYTES = 1024 * 1024;

/** A local file a Job's command reads: its ConfigMap key and its text. */
export interface JobInput {
  readonly key: string;
  readonly text: string;
}

/**
 * The ConfigMap key of each of `paths` (local files the command names), in order: the file's
 * base name with characters a key cannot hold replaced by `-`, and `-2`, `-3`… on a clash.
 * @example
 * ```ts
 * inputKeys(['a/net.yaml', 'b/net.yaml', 'x y.json']); // ['net.yaml', 'net-2.yaml', 'x-y.json']
 * ```
 */
export function inputKeys(paths: readonly string[]): string[] {
  const taken = new Set<string>();
  return paths.map((path) => {
    const base = (path.split(/[\\/]/).pop() ?? 'input').replace(/[^-._a-zA-Z0-9]/g, '-') || 'input';
    const dot = base.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${stem}-${n}${extension}`;
    taken.add(key);
    return key;
  });
}

/** The ConfigMap carrying the command's input files into every pod, at {@link JOB_INPUT_DIR}. */
export function jobInputConfigMap(
  name: string,
  namespace: string,
  inputs: readonly JobInput[],
): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: objectMeta(name, namespace),
    data: Object.fromEntries(inputs.map((input) => [input.key, input.text])),
  };
}
