import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldMeta } from '../../src/config/fieldMeta.js';
import { networkSpecSchema } from '../../src/config/index.js';

/** Every schema reachable from `root`, with the path that leads to it. */
function* fields(root: z.core.$ZodType, path = ''): Generator<[string, z.core.$ZodType]> {
  let schema = root;
  while (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) {
    schema = schema.unwrap();
  }
  yield [path, schema];
  if (schema instanceof z.ZodObject) {
    for (const [key, child] of Object.entries(schema.shape)) yield* fields(child, `${path}.${key}`);
  } else if (schema instanceof z.ZodArray) {
    yield* fields(schema.element, `${path}[]`);
  } else if (schema instanceof z.ZodRecord) {
    yield* fields(schema.valueType, `${path}{}`);
  } else if (schema instanceof z.ZodDiscriminatedUnion) {
    for (const option of schema.options) yield* fields(option, `${path}|`);
  }
}

describe('networkSpecSchema', () => {
  it('explains every field in domain words', () => {
    const undescribed = [...fields(networkSpecSchema)]
      .filter(([, schema]) => !(schema instanceof z.ZodLiteral))
      .filter(([, schema]) => fieldMeta.get(schema) === undefined)
      .map(([path]) => path);
    expect(undescribed).toStrictEqual([]);
  });

  it('rejects unknown keys in every mapping', () => {
    const loose = [...fields(networkSpecSchema)]
      .filter(([, schema]) => schema instanceof z.ZodObject)
      .filter(([, schema]) => (schema as z.ZodObject).def.catchall?._zod.def.type !== 'never')
      .map(([path]) => path);
    expect(loose).toStrictEqual([]);
  });
});
