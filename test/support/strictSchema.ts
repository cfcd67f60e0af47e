import { expect } from 'vitest';
import { z } from 'zod';

/** A response schema with every object made strict, down through arrays and optionals: no undocumented field passes. */
export function deepStrict(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    return z.object(Object.fromEntries(Object.entries(schema.shape).map(([name, field]) => [name, deepStrict(field as z.ZodType)]))).strict();
  }
  if (schema instanceof z.ZodOptional) return deepStrict(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodArray) return z.array(deepStrict(schema.element as z.ZodType));
  return schema;
}

/** The body parsed with `schema` (fails the test with zod's issues when it does not fit). */
export function strictly(schema: z.ZodType, body: unknown): Record<string, any> {
  const result = schema.safeParse(body);
  expect(result.error?.issues ?? [], JSON.stringify(body)).toEqual([]);
  return result.data as Record<string, any>;
}
