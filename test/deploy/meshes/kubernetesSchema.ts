import {
  Gateway as GatewayApiGateway,
  HTTPRoute,
} from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1';
import {
  DestinationRule,
  Gateway,
  Sidecar,
  VirtualService,
} from '@kubernetes-models/istio/networking.istio.io/v1';
import { EnvoyFilter } from '@kubernetes-models/istio/networking.istio.io/v1alpha3';
import { Deployment } from 'kubernetes-models/apps/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { parseEnvoy } from './envoySchema.js';

// Strict validation of generated Kubernetes objects (Istio, Gateway API, core) against the
// schemas the @kubernetes-models packages compile from the projects' own CRDs and OpenAPI:
// 1. the package's own validate() (types, required fields, enums, ranges);
// 2. every field we emit must be one the schema knows. The compiled validators ignore unknown
//    fields (as the API server would prune them, silently), so each field is probed: its value
//    is replaced by one of another JSON type, and a field the schema types must then fail.
// An EnvoyFilter's `patch.value` is Envoy config, which Istio's schema leaves untyped: it is
// parsed strictly by Envoy's own protos instead (a network filter's, for NETWORK_FILTER).

interface Validating {
  validate(): void;
}
type ModelClass = new (data: never) => Validating;

const MODELS: Record<string, ModelClass> = {
  'networking.istio.io/v1/VirtualService': VirtualService as unknown as ModelClass,
  'networking.istio.io/v1/DestinationRule': DestinationRule as unknown as ModelClass,
  'networking.istio.io/v1/Gateway': Gateway as unknown as ModelClass,
  'networking.istio.io/v1/Sidecar': Sidecar as unknown as ModelClass,
  'networking.istio.io/v1alpha3/EnvoyFilter': EnvoyFilter as unknown as ModelClass,
  'gateway.networking.k8s.io/v1/HTTPRoute': HTTPRoute as unknown as ModelClass,
  'gateway.networking.k8s.io/v1/Gateway': GatewayApiGateway as unknown as ModelClass,
  'apps/v1/Deployment': Deployment as unknown as ModelClass,
  'v1/Service': Service as unknown as ModelClass,
  'v1/ConfigMap': ConfigMap as unknown as ModelClass,
};

/** The kinds this checker knows, as `apiVersion/kind`. */
export const KUBERNETES_KINDS = Object.keys(MODELS);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function validationError(model: ModelClass, doc: Json): string | undefined {
  try {
    new model(structuredClone(doc) as never).validate();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A value of a JSON type other than `value`'s, to probe whether a field is typed. */
function otherType(value: Json): Json {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return { probe: [1] };
  }
  return Array.isArray(value) ? { probe: 1 } : [[1]];
}

/** Every field path of `doc` (through objects and arrays), parents first. */
function fieldPaths(doc: Json, path: (string | number)[] = []): (string | number)[][] {
  if (doc === null || typeof doc !== 'object') return [];
  const entries: [string | number, Json][] = Array.isArray(doc)
    ? doc.map((value, i) => [i, value])
    : Object.entries(doc);
  return entries.flatMap(([key, value]) => [[...path, key], ...fieldPaths(value, [...path, key])]);
}

function setAt(doc: Json, path: readonly (string | number)[], value: Json): Json {
  const copy = structuredClone(doc);
  let node = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  node[path[path.length - 1] as string | number] = value;
  return copy;
}

/**
 * The problems of one generated Kubernetes object, empty when it passes: the schema's own
 * errors, an unknown kind, and every field the schema does not type (as `spec.http.0.bogus`).
 * Array elements are probed too (an element that may be anything is reported).
 */
export function kubernetesProblems(doc: unknown): string[] {
  const json = JSON.parse(JSON.stringify(doc)) as Json;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return ['not an object'];
  const key = `${String(json.apiVersion)}/${String(json.kind)}`;
  const model = MODELS[key];
  if (model === undefined) return [`no schema for ${key}`];
  const own = validationError(model, json);
  if (own !== undefined) return [`${key}: ${own}`];
  const problems: string[] = [];
  if (key === 'networking.istio.io/v1alpha3/EnvoyFilter')
    problems.push(...envoyPatchProblems(json));
  for (const path of fieldPaths(json)) {
    // apiVersion and kind are the model's own; a probe there would change the model.
    if (path.length === 1 && (path[0] === 'apiVersion' || path[0] === 'kind')) continue;
    // Inside a patch's value: Envoy's config, checked by envoyPatchProblems.
    if (isPatchValue(path) && path.length > 5) continue;
    const value = path.reduce<Json>(
      (node, k) => (node as Record<string | number, Json>)[k] as Json,
      json,
    );
    if (validationError(model, setAt(json, path, otherType(value))) === undefined) {
      problems.push(`${key}: the schema does not know ${path.join('.')}`);
    }
  }
  return problems;
}

/** Whether `path` is at or under an EnvoyFilter's `spec.configPatches.N.patch.value`. */
function isPatchValue(path: readonly (string | number)[]): boolean {
  return (
    path[0] === 'spec' && path[1] === 'configPatches' && path[3] === 'patch' && path[4] === 'value'
  );
}

/** The Envoy message a patch's value is, by what it applies to. */
const PATCHED_MESSAGE: Record<string, string> = {
  NETWORK_FILTER: 'envoy.config.listener.v3.Filter',
  HTTP_FILTER: 'envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter',
  LISTENER: 'envoy.config.listener.v3.Listener',
  CLUSTER: 'envoy.config.cluster.v3.Cluster',
};

/** Each patch value of an EnvoyFilter that Envoy's protos refuse (or that no check knows). */
function envoyPatchProblems(json: { [key: string]: Json }): string[] {
  const patches = ((json.spec as { configPatches?: Json[] } | undefined)?.configPatches ?? []) as {
    applyTo?: string;
    patch?: { value?: Json };
  }[];
  return patches.flatMap((patch, i) => {
    if (patch.patch?.value === undefined) return [];
    const message = PATCHED_MESSAGE[patch.applyTo ?? ''];
    if (message === undefined)
      return [`EnvoyFilter: no Envoy message for applyTo ${patch.applyTo}`];
    try {
      parseEnvoy(message, patch.patch.value);
      return [];
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return [`EnvoyFilter: spec.configPatches.${i}.patch.value: ${text}`];
    }
  });
}
