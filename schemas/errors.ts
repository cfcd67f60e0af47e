import { z } from 'zod';

/** Every error body is `{error, message, ...}`; clients branch on `error`. */
export const ErrorBody = z
  .object({
    error: z.string().meta({ description: 'Machine-readable code; branch on this, never on message.' }),
    message: z.string(),
  })
  .catchall(z.unknown())
  .meta({ id: 'Error' });

export const ValidationErrorBody = z
  .object({
    error: z.literal('validation'),
    message: z.string(),
    issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })),
  })
  .meta({ id: 'ValidationError' });

export const RateLimitedBody = z
  .object({
    error: z.literal('rate_limited'),
    message: z.string(),
    retryAfterSeconds: z.number().int().min(1),
  })
  .meta({ id: 'RateLimited' });

export const NotImplementedBody = z
  .object({
    error: z.literal('not_implemented'),
    message: z.string(),
    feature: z.string(),
    requires: z.array(z.string()).optional(),
  })
  .meta({ id: 'NotImplemented' });

export type ErrorBodyShape = z.infer<typeof ErrorBody>;
