import * as z from 'zod';
import { Timestamp } from './common.ts';

export const Health = /* @__PURE__ */ z
  .object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    uptimeSeconds: z.number().min(0),
    checks: z.object({ workflow: z.enum(['ok', 'unreachable']) }),
    error: z.string().optional().meta({ description: 'Present on 503.' }),
  })
  .meta({ id: 'Health' });

export const FeatureStatus = /* @__PURE__ */ z.enum(['live', 'partial', 'simulated', 'planned']);

export const Capabilities = /* @__PURE__ */ z
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
        requires: z.array(z.string()).optional(),
      }),
    ),
  })
  .meta({ id: 'Capabilities' });

export const Me = /* @__PURE__ */ z
  .object({
    id: z.string().meta({ description: 'Organization id' }),
    name: z.string().meta({ description: 'Organization name' }),
    role: z.enum(['owner', 'admin', 'member', 'viewer']),
    memberId: z.string().optional(),
    actor: z.object({ name: z.string().nullable(), email: z.string() }).optional(),
  })
  .meta({ id: 'Me' });

export { Timestamp };
