import * as z from 'zod';

/**
 * The schemas are written in `zod/mini`, so a Lambda bundle carries zod's core and not its classic
 * layer of methods (docs/decisions/160). The document generator, zod-to-openapi, reads classic
 * schemas only (`.meta()`, `.isOptional()`, `.def`…). It runs at build time, never in a Lambda, so
 * here each mini schema is rebuilt as the classic schema with the same definition: the same checks,
 * the same nested schemas, the same metadata as classic zod's `.meta()` would have left.
 */

const twins = new WeakMap<z.core.$ZodType, z.ZodType>();

/** Definition keys that hold a schema (or a list of them) rather than a value. */
const schemaKeys = new Set(['element', 'innerType', 'options', 'keyType', 'valueType', 'catchall', 'in', 'out']);

export function classicTwin(schema: z.core.$ZodType): z.ZodType {
  if (schema instanceof z.ZodType) return schema;
  const known = twins.get(schema);
  if (known) return known;
  const name = schema._zod.constr.name.replace(/^ZodMini/, 'Zod');
  const Classic = (z as unknown as Record<string, unknown>)[name];
  if (typeof Classic !== 'function') throw new TypeError(`No classic zod schema answers to ${schema._zod.constr.name}`);

  const def = schema._zod.def as unknown as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(def)) {
    if (key === 'shape') {
      // An extended object's shape is a getter; reading it lazily keeps its order of evaluation.
      Object.defineProperty(copy, 'shape', { enumerable: true, get: () => shapeTwin(def.shape as Record<string, z.core.$ZodType>) });
    } else if (key === 'checks') {
      // `z.meta()` is a check in mini that writes the registry when attached; the twin's metadata is set below instead.
      copy.checks = (def.checks as z.core.$ZodCheck[]).filter((check) => !['meta', 'describe'].includes(check._zod.def.check));
    } else if (schemaKeys.has(key)) {
      const value = def[key];
      copy[key] = Array.isArray(value) ? value.map((item: z.core.$ZodType) => classicTwin(item)) : classicTwin(value as z.core.$ZodType);
    } else {
      copy[key] = def[key];
    }
  }
  let twin = new (Classic as new (definition: unknown) => z.ZodType)(copy);
  const metadata = ownMetadata(schema);
  if (metadata) twin = twin.meta(metadata);
  twins.set(schema, twin);
  return twin;
}

const shapes = new WeakMap<object, Record<string, z.ZodType>>();

function shapeTwin(shape: Record<string, z.core.$ZodType>): Record<string, z.ZodType> {
  const known = shapes.get(shape);
  if (known) return known;
  const twin = Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, classicTwin(value)]));
  shapes.set(shape, twin);
  return twin;
}

/**
 * The metadata classic zod would give this schema. A mini `X.check(z.meta({description}))` copies X's
 * checks, its `z.meta({id})` among them, so the copy registers X's id again; classic `.meta()` makes a
 * copy that inherits everything but the id. A copy that names its parent's id is an unnamed copy.
 */
function ownMetadata(schema: z.core.$ZodType): Record<string, unknown> | undefined {
  const metadata = z.globalRegistry.get(schema);
  if (!metadata) return undefined;
  const parent = schema._zod.parent;
  if (parent && metadata.id !== undefined && z.globalRegistry.get(parent)?.id === metadata.id) {
    const { id: _inherited, ...rest } = metadata;
    return Object.keys(rest).length > 0 ? rest : undefined;
  }
  return { ...metadata };
}
