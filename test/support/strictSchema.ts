import { expect } from 'vitest';
import * as z from 'zod/mini';

/**
 * A response schema with every object made strict, down through arrays and optionals: no undocumented
 * field passes. Told apart by zod's core classes, which classic and mini schemas both are.
 */
export function deepStrict(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.core.$ZodObject) {
    const shape = schema._zod.def.shape as Record<string, z.core.$ZodType>;
    return z.strictObject(Object.fromEntries(Object.entries(shape).map(([name, field]) => [name, deepStrict(field)])));
  }
  if (schema instanceof z.core.$ZodOptional) return z.optional(deepStrict(schema._zod.def.innerType));
  if (schema instanceof z.core.$ZodArray) return z.array(deepStrict(schema._zod.def.element));
  return schema;
}

/** The body parsed with `schema` (fails the test with zod's issues when it does not fit). */
export function strictly(schema: z.core.$ZodType, body: unknown): Record<string, any> {
  const result = z.safeParse(schema, body);
  expect(result.error?.issues ?? [], JSON.stringify(body)).toEqual([]);
  return result.data as Record<string, any>;
}
