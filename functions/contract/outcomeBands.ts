/**
 * The simulators' outcome bands (docs/decisions/040): the cents of an amount choose how an
 * operation ends, so every failure path can be forced on purpose. Contract data a tester reads
 * (GET /treasury/sandbox-prefill, the OpenAPI document): the simulators (functions/simulators/)
 * act on these tables, the documents publish them, so both read them from here.
 */
export interface OutcomeBand {
  /** The two decimal digits after the point: 100.91 is band 91. */
  cents: number;
  /** The end the operation reaches. */
  outcome: string;
  description: string;
}

/** The band of an amount in minor units of a currency with `scale` decimals (at least 2): its cents. */
export function centsOf(minor: bigint, scale: number): number {
  if (scale < 2) throw new Error('a currency without cents has no outcome band');
  return Number((minor / 10n ** BigInt(scale - 2)) % 100n);
}

// ---- Payments: the cents of the USDC sent (100.91 USDC → band 91) ------------------------------

export const outcomeBands = {
  rejected: 91,
  returned: 92,
  unavailableTwice: 93,
  unanswered: 94,
  review: 95,
  shortPaid: 96,
  failedAfterAcceptance: 97,
} as const;

/** The bands as a tester reads them (GET /treasury/sandbox-prefill): cents of the USDC sent, and the payment's end. */
export const payoutOutcomeBands: readonly OutcomeBand[] = [
  { cents: outcomeBands.rejected, outcome: 'FAILED', description: 'The rail refuses the payout (beneficiary account closed); nothing was sent and the hold is released.' },
  { cents: outcomeBands.returned, outcome: 'REFUNDED', description: 'Paid, then returned by the beneficiary bank; the USDC comes back to the balance.' },
  { cents: outcomeBands.unavailableTwice, outcome: 'RECONCILED', description: 'The provider is unavailable twice (PENDING_RETRY), then pays.' },
  { cents: outcomeBands.unanswered, outcome: 'IN_DOUBT', description: 'The submit is never answered; the payment is parked and never submitted again.' },
  { cents: outcomeBands.review, outcome: 'NEEDS_ATTENTION', description: "Held by the provider's compliance review; funds stay held." },
  { cents: outcomeBands.shortPaid, outcome: 'RECONCILED', description: 'Paid one whole destination unit short; the status shows a payoutDelta.' },
  { cents: outcomeBands.failedAfterAcceptance, outcome: 'FAILED', description: 'Accepted, then rejected by the rail; the hold is released.' },
];

// ---- Withdrawals: the cents of the USDC withdrawn (docs/decisions/060); any other cents: SENT ---

export const withdrawalBands = { refused: 91, cancelled: 92, unavailableTwice: 93, unanswered: 94, review: 95 } as const;

export const withdrawalOutcomeBands: readonly OutcomeBand[] = [
  { cents: withdrawalBands.refused, outcome: 'FAILED', description: 'The custodian refuses the destination before any USDC moved; the hold is released.' },
  { cents: withdrawalBands.cancelled, outcome: 'RETURNED', description: 'The custodian cancels the transfer before broadcasting it: RETURNING, then RETURNED with the hold released.' },
  { cents: withdrawalBands.unavailableTwice, outcome: 'SENT', description: 'The custodian is unavailable for two sends (PENDING_RETRY twice), then the transfer is sent and confirmed.' },
  { cents: withdrawalBands.unanswered, outcome: 'IN_DOUBT', description: 'The broadcast goes unanswered: the withdrawal is parked with its funds held and never sent again.' },
  { cents: withdrawalBands.review, outcome: 'NEEDS_ATTENTION', description: "Held by the custodian's review: the funds stay held until operations decide." },
];

// ---- On-ramps: the cents of the fiat amount (100.92 USD → band 92; docs/decisions/054, 055) -----

export const onRampBands = { refunded: 92, unanswered: 94, failed: 97 } as const;

export const onRampOutcomeBands: readonly OutcomeBand[] = [
  {
    cents: onRampBands.refunded,
    outcome: 'REFUNDED',
    description: "The payment arrives, but the payer's money is returned before conversion (the issuer refuses the funds); webhook onramp.refunded; nothing is credited.",
  },
  {
    cents: onRampBands.unanswered,
    outcome: 'IN_DOUBT',
    description: 'The USDC delivery to the home wallet is not answered: it may have been sent. Parked for reconciliation, never sent again; nothing is credited.',
  },
  {
    cents: onRampBands.failed,
    outcome: 'FAILED',
    description:
      'The collection cannot be opened: a wire deposit opened by POST /treasury/onramp fails before any payment (POST /treasury/onramp/pix answers 422 pix_onramp_unavailable); a wire that arrives unannounced stops before conversion.',
  },
];

// ---- Off-ramps: the cents of the USDC off-ramped, read as a payment's (docs/decisions/061) -----

export const offRampBands = { refused: 91, returned: 92, unavailableTwice: 93, unanswered: 94, slippage: 96 } as const;

/** The bands as a tester reads them (GET /treasury/sandbox-prefill): cents of the USDC off-ramped, and the end. */
export const offRampOutcomeBands: readonly OutcomeBand[] = [
  { cents: offRampBands.refused, outcome: 'FAILED', description: 'The provider refuses the beneficiary before any USDC is sent; the hold is released.' },
  { cents: offRampBands.returned, outcome: 'REFUNDED', description: 'Paid, then returned by the beneficiary bank; the USDC comes back to the balance.' },
  { cents: offRampBands.unavailableTwice, outcome: 'PAID', description: 'The provider is unavailable for two deposit attempts, then takes the USDC and pays.' },
  { cents: offRampBands.unanswered, outcome: 'IN_DOUBT', description: 'The deposit to the provider is never answered; the off-ramp is parked with its USDC held and never sent again.' },
  { cents: offRampBands.slippage, outcome: 'PAID', description: 'Paid one whole unit of the payout currency short, shown in `slippage`.' },
];
