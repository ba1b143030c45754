import { z } from 'zod';
import type { CustomIssue } from './customIssue.js';
import { described } from './fieldMeta.js';

// Edge classification, as both files write it: a network file's `edge` (every service with
// external arrivals) and a sidecar config's `inbound.edge`. One schema and one set of rules, so
// an edge rule reads and fails the same way in both.

/** An HTTP token (RFC 9110 §5.6.2): header names and methods. */
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const headerName = () => described(z.string().regex(TOKEN), 'an HTTP header name');

/**
 * A class's name where it is declared (network files and sidecar configs alike): an HTTP token,
 * so that every carrier of the class can hold it as it is — an HTTP header value, a gRPC
 * metadata value, an Envoy, Istio, Linkerd or Gateway API header match — and no generator has a
 * rule of its own. One message everywhere.
 */
export const className = () =>
  described(
    z.string().regex(TOKEN),
    "a class name: an HTTP token (letters, digits and !#$%&'*+-.^_`|~), which every HTTP header and gRPC metadata value can carry",
  );
/**
 * What makes two class names the same class: their lower-case form. A class header is read in
 * any case (the runtime's `ClassTable`, Istio's header match), so `High` and `high` cannot be
 * two classes; the network file and the sidecar config refuse them alike.
 */
export const classKey = (name: string): string => name.toLowerCase();
export const classRef = () => described(z.string(), 'a class name');
export const envName = () =>
  described(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
    'an environment variable name (letters, digits, _)',
  );
export const pathPrefix = () =>
  described(z.string().regex(/^\/[^?#\s]*$/), 'a path starting with / (no query)');

/** One edge rule: the request matches when every condition given holds. */
export const edgeRuleSchema = described(
  z.strictObject({
    path: pathPrefix().optional(),
    method: described(z.string().regex(TOKEN), 'an HTTP method').optional(),
    header: headerName().optional(),
    // A blank value would accept a header sent empty (`x-api-key:`), as if it were a key.
    value: described(z.string().regex(/\S/), 'a non-blank string').optional(),
    valueEnv: envName().optional(),
    class: classRef(),
  }),
  'an edge rule: a mapping with class and path, method or header',
);

/** Edge classification: rules in order (the first match wins), and the class of the rest. */
export const edgeSchema = described(
  z.strictObject({
    rules: described(z.array(edgeRuleSchema), 'a list of edge rules').default([]),
    default: classRef().optional(),
  }),
  'an edge: a mapping with rules and default',
);

/** Edge classification: rules → class. */
export type EdgeConfig = z.output<typeof edgeSchema>;
/** One edge rule. */
export type EdgeRuleConfig = z.output<typeof edgeRuleSchema>;

/**
 * The rules an edge's fields must keep together, each broken one reported at `at` + its path:
 * every class named is declared (`checkClass`), a rule has a path, method or header, `value`
 * and `valueEnv` need `header` and exclude each other.
 */
export function checkEdgeRules(
  edge: EdgeConfig,
  at: readonly PropertyKey[],
  checkClass: (path: PropertyKey[], name: string | undefined) => void,
  report: (issue: CustomIssue) => void,
): void {
  checkClass([...at, 'default'], edge.default);
  edge.rules.forEach((rule, i) => {
    const here = [...at, 'rules', i];
    checkClass([...here, 'class'], rule.class);
    if (rule.path === undefined && rule.method === undefined && rule.header === undefined) {
      report({
        path: here,
        problem:
          'an edge rule needs path, method or header (one rule matching everything is edge.default)',
        expected: 'path, method or header',
      });
    }
    for (const field of ['value', 'valueEnv'] as const) {
      if (rule[field] !== undefined && rule.header === undefined) {
        report({
          path: [...here, field],
          problem: `${field} compares a header's value, expected header beside it`,
          expected: 'header beside it',
          at: 'key',
        });
      }
    }
    if (rule.value !== undefined && rule.valueEnv !== undefined) {
      report({
        path: [...here, 'valueEnv'],
        problem: 'an edge rule has value or valueEnv, not both',
        expected: 'value or valueEnv, not both',
        at: 'key',
      });
    }
  });
}
