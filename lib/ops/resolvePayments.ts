import { parseArgs } from 'node:util';
import { noteOf, ResolveUsageError } from './resolveDeposits.ts';
import { InvalidResolution, OperationNotFound } from '#operations/kit/errors.ts';
import type { OperatorResolution } from '#operations/kit/resolution.ts';
import { paymentResolutions, resolvePayment, type PaymentResolution } from '#operations/payment/resolve.ts';
import { resolveWithdrawal, withdrawalResolutions, type WithdrawalResolution } from '#operations/withdrawal/resolve.ts';

/**
 * `admin resolve payment|withdrawal <organizationId> <id> --as <outcome> --note "<text>" [--tx-hash 0x…]`:
 * what an operator runs after reconciling a parked payment or withdrawal with the provider. It
 * only reads the arguments and calls the domain's resolution (functions/operations/payment/progress.ts,
 * withdrawalProgress.ts), which moves the status, the money and the event together, or nothing.
 */
export const resolvableKinds = ['payment', 'withdrawal'] as const;
export type ResolvableKind = (typeof resolvableKinds)[number];


export interface ResolveAnswer extends OperatorResolution {
  kind: ResolvableKind;
  organizationId: string;
  id: string;
  as: string;
}

export async function resolveFromCli(kind: string, args: string[]): Promise<ResolveAnswer> {
  if (!(resolvableKinds as readonly string[]).includes(kind)) throw new ResolveUsageError(`resolve ${resolvableKinds.join(' or ')}`);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { as: { type: 'string' }, note: { type: 'string' }, 'tx-hash': { type: 'string' } },
    });
  } catch (error) {
    throw new ResolveUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [organizationId, id, extra] = positionals;
  if (!organizationId || !id || extra !== undefined) throw new ResolveUsageError(`give an organization id and a ${kind} id`);
  const outcomes: readonly string[] = kind === 'payment' ? paymentResolutions : withdrawalResolutions;
  if (!values.as || !outcomes.includes(values.as)) throw new ResolveUsageError(`--as must be ${outcomes.join(' or ')}`);
  const note = noteOf(values.note);
  const txHash = values['tx-hash'];
  if (kind === 'payment' && txHash !== undefined) throw new ResolveUsageError('--tx-hash goes with withdrawals resolved as sent');

  let resolution: OperatorResolution;
  try {
    resolution = kind === 'payment'
      ? await resolvePayment({ organizationId, transactionId: id, as: values.as as PaymentResolution, note })
      : await resolveWithdrawal({ organizationId, withdrawalId: id, as: values.as as WithdrawalResolution, note, ...(txHash === undefined ? {} : { txHash }) });
  } catch (error) {
    if (error instanceof InvalidResolution) throw new ResolveUsageError(error.message);
    if (error instanceof OperationNotFound) throw new ResolveUsageError(`no ${kind} ${id} in organization ${organizationId}`);
    throw error;
  }
  return { kind: kind as ResolvableKind, organizationId, id, as: values.as, ...resolution };
}
