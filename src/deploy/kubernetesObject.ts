/** A Kubernetes object as a generator emits it (plain JSON; checked by the meshes' schemas in tests). */
export interface KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

/** The metadata difftry gives every object it generates. */
export interface ObjectMeta {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** The label on every generated object, to find (and prune) them: `-l app.kubernetes.io/managed-by=difftry`. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'difftry' } as const;

/**
 * A generated object's metadata: its name and namespace, `app.kubernetes.io/managed-by:
 * difftry`, the service's `app` label when it belongs to one, and any annotations.
 */
export function objectMeta(
  name: string,
  namespace: string,
  options: { app?: string; annotations?: Readonly<Record<string, string>> } = {},
): ObjectMeta {
  return {
    name,
    namespace,
    labels: { ...(options.app !== undefined && { app: options.app }), ...MANAGED_BY },
    ...(options.annotations !== undefined && { annotations: { ...options.annotations } }),
  };
}

/** What a generator gives: the objects, and what the mesh could not express (for comments and docs). */
export interface MeshManifest {
  readonly objects: readonly KubernetesObject[];
  /** One sentence per limit, in the file's comment header and the command's `--json`. */
  readonly limits: readonly string[];
}
