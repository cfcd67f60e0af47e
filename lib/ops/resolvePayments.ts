import { parseArgs } from 'node:util';
import type { OperatorResolution } from '#core/operatorResolution.ts';
import { paymentResolutions, resolvePayment, type PaymentResolution } from '#core/paymentProgress.ts';
import { resolveWithdrawal, withdrawalResolutions, type WithdrawalResolution } from '#core/withdrawalProgress.ts';

/**
 * `admin resolve payment|withdrawal <organizationId> <id> --as <outcome> --note "<text>" [--tx-hash 0x…]`:
 * what an operator runs after reconciling a parked payment or withdrawal with the provider. It
 * only reads the arguments and calls the domain's resolution (functions/core/paymentProgress.ts,
 * withdrawalProgress.ts), which moves the status, the money and the event together, or nothing.
 */
export const resolvableKinds = ['payment', 'withdrawal'] as const;
export type ResolvableKind = (typeof resolvableKinds)[number];

/** The arguments were wrong, or the operation does not exist: nothing was read or written beyond looking it up. */
export class ResolveRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResolveRefused';
  }
}

export interface ResolveAnswer extends OperatorResolution {
  kind: ResolvableKind;
  organizationId: string;
  id: string;
  as: string;
}

export async function resolveFromCli(kind: string, args: string[]): Promise<ResolveAnswer> {
  if (!(resolvableKinds as readonly string[]).includes(kind)) throw new ResolveRefused(`resolve ${resolvableKinds.join(' or ')}`);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { as: { type: 'string' }, note: { type: 'string' }, 'tx-hash': { type: 'string' } },
    });
  } catch (error) {
    throw new ResolveRefused((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [organizationId, id, extra] = positionals;
  if (!organizationId || !id || extra !== undefined) throw new ResolveRefused(`give an organization id and a ${kind} id`);
  const outcomes: readonly string[] = kind === 'payment' ? paymentResolutions : withdrawalResolutions;
  if (!values.as || !outcomes.includes(values.as)) throw new ResolveRefused(`--as must be ${outcomes.join(' or ')}`);
  const note = values.note?.trim();
  if (!note) throw new ResolveRefused('--note is required: what operations confirmed with the provider (the audit trail)');
  if (note.length > 500 || /[\r\n]/.test(note)) throw new ResolveRefused('--note is one line of at most 500 characters');
  const txHash = values['tx-hash'];
  if (kind === 'payment' && txHash !== undefined) throw new ResolveRefused('--tx-hash goes with withdrawals resolved as sent');

  let resolution: OperatorResolution;
  try {
    resolution = kind === 'payment'
      ? await resolvePayment({ organizationId, transactionId: id, as: values.as as PaymentResolution, note })
      : await resolveWithdrawal({ organizationId, withdrawalId: id, as: values.as as WithdrawalResolution, note, ...(txHash === undefined ? {} : { txHash }) });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'InvalidResolution') throw new ResolveRefused((error as Error).message);
    if (name === 'PaymentNotFound' || name === 'WithdrawalNotFound') throw new ResolveRefused(`no ${kind} ${id} in organization ${organizationId}`);
    throw error;
  }
  return { kind: kind as ResolvableKind, organizationId, id, as: values.as, ...resolution };
}
