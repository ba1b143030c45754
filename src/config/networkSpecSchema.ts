import { described } from './fieldMeta.js';
import { checkNetworkRules } from './networkRules.js';
import { networkObjectSchema } from './schema.js';

/**
 * The one schema of a network file (docs/design.md, "Files and commands"), with the rules that span
 * fields (declared names, route probabilities, acyclic calls): parse with it and every problem
 * comes out as a zod issue with a path.
 */
export const networkSpecSchema = described(
  networkObjectSchema.superRefine(checkNetworkRules),
  'a network: a mapping with classes and services',
);
