import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { config } from '#platform/config.ts';
import { workflowEngine } from '#platform/workflow.ts';
import { getHealth } from '#contract/routes.ts';

/** How long the workflow engine may take to answer before it counts as unreachable. */
const probeTimeoutMs = 2_000;

export const handler = endpoint(getHealth, async () => {
  const reachable = await Promise.race([
    workflowEngine().then((engine) => engine.reachable()).catch(() => false),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), probeTimeoutMs).unref()),
  ]);
  const body = {
    status: reachable ? 'ok' : 'degraded',
    version: config().SERVICE_VERSION,
    uptimeSeconds: Math.floor(process.uptime()),
    checks: { workflow: reachable ? 'ok' : 'unreachable' },
  };
  if (reachable) return ok(body);
  return ok({ ...body, error: 'The workflow engine is unreachable: no payment can start; reads still work.' }, 503);
});
