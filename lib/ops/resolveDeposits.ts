import { OperationNotFound } from '#operations/kit/errors.ts';
import { parseArgs } from 'node:util';
import { InvalidResolution, requireNote } from '#operations/kit/resolution.ts';
import { resolveOffRamp } from '#operations/offRamp/resolve.ts';
import { offRampStatusView, type OffRampRecord } from '#operations/offRamp/view.ts';
import { resolveOnRamp, txHashPattern } from '#operations/onRamp/resolve.ts';
import { statusView, type OnRampRecord } from '#operations/onRamp/view.ts';
import { operationExecutionName } from '#operations/kit/start.ts';
import { resolveParkedLine } from '#operations/onRamp/wireDeposits.ts';
import { useWorkflowEngine } from '#platform/workflow.ts';
import { getOperation } from '#store/operations.ts';

/**
 * `admin resolve onramp|offramp|wire-line`: the operator's way out for on-ramps and off-ramps
 * parked IN_DOUBT and for incoming wires parked for manual reconciliation
 * (docs/decisions/063-operator-resolution.md). Parses the arguments, calls the core function
 * (functions/operations/onRamp/resolve.ts `resolveOnRamp`, offRamp/resolve.ts `resolveOffRamp`,
 * wireDeposits.ts `resolveParkedLine`) and answers the object bin/admin.ts prints as one JSON line.
 * A resolution that changed nothing (run twice, not parked) answers `resolved: false` and why.
 */
export const depositResolutionKinds = ['onramp', 'offramp', 'wire-line'] as const;
export type DepositResolutionKind = (typeof depositResolutionKinds)[number];

export const isDepositResolutionKind = (kind: string | undefined): kind is DepositResolutionKind =>
  (depositResolutionKinds as readonly string[]).includes(kind ?? '');

/** Wrong or missing arguments, or an operation that does not exist: bin/admin.ts prints it with the usage (exit 2); nothing was written. */
export class ResolveUsageError extends Error {
  override name = 'ResolveUsageError';
}

/** The operator's note, checked by the core's own rule (functions/operations/kit/resolution.ts). */
export function noteOf(text: string | undefined): string {
  try {
    return requireNote(text);
  } catch (error) {
    if (error instanceof InvalidResolution) throw new ResolveUsageError(error.message);
    throw error;
  }
}

const outcomes = { onramp: ['delivered', 'not-delivered'], offramp: ['paid', 'refunded'] } as const;

export type DepositResolutionRequest =
  | { kind: 'onramp'; organizationId: string; id: string; as: 'delivered'; txHash: string; note: string }
  | { kind: 'onramp'; organizationId: string; id: string; as: 'not-delivered'; note: string }
  | { kind: 'offramp'; organizationId: string; id: string; as: 'paid' | 'refunded'; note: string }
  | { kind: 'wire-line'; statementLineId: string; organizationId: string; note: string };

export function parseDepositResolution(kind: DepositResolutionKind, args: string[]): DepositResolutionRequest {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { as: { type: 'string' }, note: { type: 'string' }, 'tx-hash': { type: 'string' }, org: { type: 'string' } },
    });
  } catch (error) {
    throw new ResolveUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const note = noteOf(values.note);

  if (kind === 'wire-line') {
    const [statementLineId, extra] = positionals;
    if (!statementLineId || extra !== undefined || !values.org) throw new ResolveUsageError('give a statement line id and --org <organizationId>');
    if (values.as !== undefined || values['tx-hash'] !== undefined) throw new ResolveUsageError('resolve wire-line takes no --as or --tx-hash');
    return { kind, statementLineId, organizationId: values.org, note };
  }
  const [organizationId, id, extra] = positionals;
  if (!organizationId || !id || extra !== undefined) throw new ResolveUsageError(`give an organization id and the ${kind === 'onramp' ? 'on-ramp' : 'off-ramp'} id`);
  if (values.org !== undefined) throw new ResolveUsageError(`resolve ${kind} takes the organization as its first argument, not --org`);
  const allowed: readonly string[] = outcomes[kind];
  if (!values.as || !allowed.includes(values.as)) throw new ResolveUsageError(`--as must be ${allowed.join(' or ')}`);
  const txHash = values['tx-hash'];
  if (kind === 'offramp') {
    if (txHash !== undefined) throw new ResolveUsageError('resolve offramp takes no --tx-hash');
    return { kind, organizationId, id, as: values.as as 'paid' | 'refunded', note };
  }
  if (values.as === 'delivered') {
    if (!txHash || !txHashPattern.test(txHash)) throw new ResolveUsageError('--as delivered needs --tx-hash 0x<64 hex digits>: the delivery the issuer confirmed');
    return { kind, organizationId, id, as: 'delivered', txHash, note };
  }
  if (txHash !== undefined) throw new ResolveUsageError('--tx-hash goes only with --as delivered');
  return { kind, organizationId, id, as: 'not-delivered', note };
}

export interface ResolveOptions {
  /**
   * Locally (DYNAMODB_ENDPOINT set), a deposit a wire line starts runs its workflow in this process
   * for up to this long (recorded in the table: a running `npm start` re-drives what is left).
   * 0: the workflow is only started (as the API does). Default 0.
   */
  runDepositForMs?: number;
}

/** Resolves; an unknown on-ramp, off-ramp or statement line is a ResolveUsageError (nothing was written). */
export async function runDepositResolution(request: DepositResolutionRequest, options: ResolveOptions = {}): Promise<Record<string, unknown>> {
  try {
    return await resolve(request, options);
  } catch (error) {
    if (error instanceof OperationNotFound) throw new ResolveUsageError(error.message);
    throw error;
  }
}

async function resolve(request: DepositResolutionRequest, options: ResolveOptions): Promise<Record<string, unknown>> {
  if (request.kind === 'onramp') {
    const result = await resolveOnRamp({ organizationId: request.organizationId, onRampId: request.id }, request);
    const now = await getOperation<OnRampRecord>(request.organizationId, 'onramp', request.id);
    return { kind: request.kind, organizationId: request.organizationId, id: request.id, ...result, ...(now ? { onRamp: statusView(now) } : {}) };
  }
  if (request.kind === 'offramp') {
    const result = await resolveOffRamp({ organizationId: request.organizationId, offRampId: request.id }, request);
    const now = await getOperation<OffRampRecord>(request.organizationId, 'offramp', request.id);
    return { kind: request.kind, organizationId: request.organizationId, id: request.id, ...result, ...(now ? { offRamp: offRampStatusView(now) } : {}) };
  }

  const runFor = options.runDepositForMs ?? 0;
  let runner: import('../local/workflowRunner.ts').LocalWorkflowRunner | undefined;
  if (runFor > 0 && process.env.DYNAMODB_ENDPOINT) {
    const { LocalWorkflowRunner } = await import('../local/workflowRunner.ts');
    runner = new LocalWorkflowRunner();
    useWorkflowEngine(runner);
  }
  try {
    const result = await resolveParkedLine(request);
    const { resolved, detail, disposition, onRampId } = result;
    let workflow: string | undefined;
    if (runner && resolved && disposition === 'pending' && onRampId) {
      try {
        workflow = (await runner.waitFor(operationExecutionName('onRamp', request.organizationId, onRampId), runFor)).status;
      } catch {
        workflow = 'RUNNING';
      }
    }
    const onRamp = onRampId && result.organizationId ? await getOperation<OnRampRecord>(result.organizationId, 'onramp', onRampId) : undefined;
    return {
      kind: request.kind,
      statementLineId: request.statementLineId,
      organizationId: result.organizationId,
      resolved,
      status: disposition,
      detail,
      onRampId,
      ...(workflow ? { workflow } : {}),
      ...(onRamp ? { onRamp: statusView(onRamp) } : {}),
    };
  } finally {
    if (runner) {
      await runner.stop();
      useWorkflowEngine(undefined);
    }
  }
}
