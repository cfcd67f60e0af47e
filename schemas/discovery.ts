import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { Timestamp } from './common.ts';

export const Health = /* @__PURE__ */ schema(() => z
  .object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    uptimeSeconds: z.number().check(z.minimum(0)),
    checks: z.object({ workflow: z.enum(['ok', 'unreachable']) }),
    error: z.optional(z.string()).check(z.meta({ description: 'Present on 503.' })),
  })
  .check(z.meta({ id: 'Health' })));

export const FeatureStatus = /* @__PURE__ */ schema(() => z.enum(['live', 'partial', 'simulated', 'planned']));

export const Capabilities = /* @__PURE__ */ schema(() => z
  .object({
    version: z.string(),
    environment: z.enum(['simulated', 'sandbox', 'production']),
    corridors: z.array(
      z.object({
        from: z.string(),
        to: z.string(),
        destinationCountry: z.string(),
        ownedRail: z.boolean(),
        instant: z.boolean(),
      }),
    ),
    features: z.array(
      z.object({
        feature: z.string(),
        status: FeatureStatus,
        reason: z.string(),
        requires: z.optional(z.array(z.string())),
      }),
    ),
  })
  .check(z.meta({ id: 'Capabilities' })));

export const Me = /* @__PURE__ */ schema(() => z
  .object({
    id: z.string().check(z.meta({ description: 'Organization id' })),
    name: z.string().check(z.meta({ description: 'Organization name' })),
    role: z.enum(['owner', 'admin', 'member', 'viewer']),
    memberId: z.optional(z.string()),
    actor: z.optional(z.object({ name: z.nullable(z.string()), email: z.string() })),
  })
  .check(z.meta({ id: 'Me' })));

export { Timestamp };
