import { corridorCatalogue, sampleBeneficiary } from '#domain/corridors.ts';
import { payoutOutcomeBands, type OutcomeBand } from '#contract/outcomeBands.ts';
import type { SandboxOutcomeBand, SandboxPrefill } from '#schemas/sandbox.ts';

/**
 * GET /treasury/sandbox-prefill: inputs the simulators settle, so a first payment, deposit or
 * withdrawal in the sandbox needs no research. Built from the same tables the simulators read
 * (the corridor catalogue's sample beneficiaries, each simulator's own outcome bands), so it cannot
 * promise an outcome the simulator would not produce (docs/decisions/062).
 */

/** A round amount in the band: 100 whole units and the band's cents. */
function bandRows(operation: SandboxOutcomeBand['operation'], currency: string, bands: readonly OutcomeBand[]): SandboxOutcomeBand[] {
  return bands.map((band) => {
    const cents = band.cents.toString().padStart(2, '0');
    return { operation, currency, cents, example: `100.${cents}`, outcome: band.outcome, detail: band.description };
  });
}

export interface PrefillBands {
  onramp?: readonly OutcomeBand[];
  withdrawal?: readonly OutcomeBand[];
  offramp?: readonly OutcomeBand[];
}

export function sandboxPrefill(input: { offrampBeneficiaries: SandboxPrefill['offrampBeneficiaries']; bands: PrefillBands }): SandboxPrefill {
  const payouts = corridorCatalogue.map((corridor, index) => ({
    corridor: { to: corridor.to, destinationCountry: corridor.destinationCountry },
    sendAmount: { amount: '100.00', currency: 'USDC' },
    beneficiary: sampleBeneficiary(corridor),
    recipientReference: `sandbox invoice ${String(index + 1).padStart(3, '0')}`,
  }));
  const bands = [
    ...bandRows('payment', 'USDC', payoutOutcomeBands),
    // On-ramp bands read the cents of the fiat deposited: the same bands in each currency deposited.
    ...['USD', 'EUR', 'BRL'].flatMap((currency) => bandRows('onramp', currency, input.bands.onramp ?? [])),
    ...bandRows('withdrawal', 'USDC', input.bands.withdrawal ?? []),
    ...bandRows('offramp', 'USDC', input.bands.offramp ?? []),
  ];
  return {
    payouts,
    offrampBeneficiaries: input.offrampBeneficiaries,
    bands,
    notes: [
      'Every name, account and amount here is made up; nothing settles and no money moves.',
      'The cents of an amount choose its outcome (bands): 100.00 runs the normal path, 100.92 a payment that is returned, and so on.',
      'Fund the balance with POST /treasury/onramps/simulate-wire (a wire quoting your reference), then pay with POST /transactions.',
      'Waits are seconds long here; poll GET /transactions/{id} (or the on-ramp, withdrawal or off-ramp) until it is no longer running.',
      'Quotes last about a minute and are single use; a payment without a quoteId is priced when it is accepted.',
    ],
  };
}
