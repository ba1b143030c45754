import { JOB_INPUT_DIR } from './jobInputs.js';
import { type KubernetesObject, objectMeta } from './kubernetesObject.js';

/** Where each pod of the Job writes its shard's result. */
export const JOB_OUTPUT_DIR = '/out';

/** The image's user (the official Node image's `node`), by number for runAsNonRoot. */
const IMAGE_USER = 1000;

/** What {@link indexedJob} needs. */
export interface IndexedJobOptions {
  /** The Job's name (a DNS label). */
  readonly name: string;
  readonly namespace: string;
  /** The difftry image (the Dockerfile's), whose entrypoint is the CLI. */
  readonly image: string;
  /** N: the work is cut into this many shards, one pod each (`completions`). */
  readonly shards: number;
  /** Pods at once (`parallelism`); default all of them. */
  readonly parallelism?: number;
  /** The difftry command and its arguments, without `--shard` and `--out`. */
  readonly command: readonly string[];
  /**
   * A PersistentVolumeClaim for the results (mounted at {@link JOB_OUTPUT_DIR} in every pod);
   * none: an `emptyDir`, gone with the pod — then read the results some other way.
   */
  readonly volumeClaim?: string;
  /** Retries of one index before it counts as failed (`backoffLimitPerIndex`); default 1. */
  readonly retriesPerIndex?: number;
  /**
   * A ConfigMap holding the files the command reads, mounted read-only at
   * {@link JOB_INPUT_DIR} (the command's arguments name them there).
   */
  readonly inputConfigMap?: string;
}

/**
 * A Kubernetes **Indexed Job** that runs a difftry command in `shards` pods, pod I running
 * `COMMAND --shard I/N --out /out` (the index from the Job controller's `JOB_COMPLETION_INDEX`,
 * expanded by the kubelet in the arguments), each writing its result into the shared volume for
 * `difftry merge /out` (docs/scale-out.md). Every item of the work is seeded by its own number,
 * so the shards merged are the single run, whatever pods ran which shard, or how often.
 */
export function indexedJob(options: IndexedJobOptions): KubernetesObject {
  const meta = objectMeta(options.name, options.namespace);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta,
    spec: {
      completionMode: 'Indexed',
      completions: options.shards,
      parallelism: Math.min(options.parallelism ?? options.shards, options.shards),
      backoffLimitPerIndex: options.retriesPerIndex ?? 1,
      // Without it, Kubernetes defaults backoffLimit to 6 for the whole Job, which stops an
      // Indexed Job with backoffLimitPerIndex only when every index has used its own.
      backoffLimit: options.shards * ((options.retriesPerIndex ?? 1) + 1),
      template: {
        metadata: { labels: { ...meta.labels } },
        spec: {
          restartPolicy: 'Never',
          securityContext: {
            runAsNonRoot: true,
            runAsUser: IMAGE_USER,
            runAsGroup: IMAGE_USER,
            fsGroup: IMAGE_USER,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'difftry',
              image: options.image,
              args: [
                ...options.command,
                '--shard',
                `$(JOB_COMPLETION_INDEX)/${options.shards}`,
                '--out',
                JOB_OUTPUT_DIR,
              ],
              volumeMounts: [
                { name: 'out', mountPath: JOB_OUTPUT_DIR },
                ...(options.inputConfigMap === undefined
                  ? []
                  : [{ name: 'input', mountPath: JOB_INPUT_DIR, readOnly: true }]),
              ],
              securityContext: {
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
          volumes: [
            options.volumeClaim === undefined
              ? { name: 'out', emptyDir: {} }
              : { name: 'out', persistentVolumeClaim: { claimName: options.volumeClaim } },
            ...(options.inputConfigMap === undefined
              ? []
              : [{ name: 'input', configMap: { name: options.inputConfigMap } }]),
          ],
        },
      },
    },
  };
}
