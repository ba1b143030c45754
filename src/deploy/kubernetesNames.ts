import { InvalidArgumentError } from '../core/InvalidArgumentError.js';
import type { MeshPlan } from './meshPlan.js';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether `text` is an RFC 1123 label, as Kubernetes names a namespace: at most 63 characters. */
export function isDnsLabel(text: string): boolean {
  return LABEL.test(text) && text.length <= 63;
}

/**
 * Whether `text` is an RFC 1123 subdomain, as Kubernetes names most objects (a Secret, an
 * HTTPRoute): dot-separated labels, at most 253 characters.
 */
export function isDnsSubdomain(text: string): boolean {
  return SUBDOMAIN.test(text) && text.length <= 253;
}

/** The longest Kubernetes Service name (an RFC 1035 label). */
const MAX_NAME = 63;

/**
 * A service's name as a Kubernetes object name and DNS label (RFC 1035: lower-case letters,
 * digits and `-`, starting with a letter, at most 63 characters): lower-cased, every other
 * character becomes `-`, runs of `-` collapse, a leading digit gets `s-`. `frontend` stays
 * `frontend`; `Search_API` becomes `search-api`.
 */
export function kubernetesName(service: string): string {
  let name = service
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
  if (!/^[a-z]/.test(name)) name = `s-${name}`;
  return name.slice(0, MAX_NAME).replace(/-$/, '');
}

/**
 * The Kubernetes name of every service of a plan, by service name.
 * @throws RangeError when two services would get the same name (rename one in the network file).
 */
export function kubernetesNames(plan: MeshPlan): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  const owner = new Map<string, string>();
  for (const service of plan.services) {
    const name = kubernetesName(service.name);
    const other = owner.get(name);
    if (other !== undefined) {
      throw new InvalidArgumentError(
        `services "${other}" and "${service.name}" would both be the Kubernetes name "${name}"; rename one`,
      );
    }
    owner.set(name, service.name);
    names.set(service.name, name);
  }
  return names;
}

/**
 * A label per class name, for object names that hold one (`<service>.<class>`): its
 * {@link kubernetesName}, with `-2`, `-3`, … added where an earlier class (or a `reserved`
 * label) took it (`Gold` and `gold`), so that every class has its own.
 */
export function classLabels(
  classes: readonly string[],
  reserved: readonly string[] = [],
): ReadonlyMap<string, string> {
  const labels = new Map<string, string>();
  const used = new Set<string>(reserved);
  for (const className of classes) {
    const label = kubernetesName(className);
    let candidate = label;
    for (let n = 2; used.has(candidate); n++) candidate = `${label}-${n}`;
    used.add(candidate);
    labels.set(className, candidate);
  }
  return labels;
}
