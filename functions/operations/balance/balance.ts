import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/logger.ts';
import { ledgerCurrency, readBalance, type LedgerBalance } from '#store/ledger.ts';
import type { Balance } from '#schemas/wallets.ts';

/**
 * GET /balance: the organization's USDC as the ledger holds it, in exact minor units.
 * `total` is available + settling; `held` is not shown: it is already committed to payments in
 * flight (debited from `available` when the payment was accepted). One strongly consistent read,
 * so the figures are either whole (`complete: true`) or the request fails with 503 `unavailable`:
 * there is no partial result to show as a floor.
 */
export async function balanceOf(organizationId: string): Promise<Balance> {
  let balance: LedgerBalance;
  try {
    balance = await readBalance(organizationId);
  } catch (error) {
    logger.error('balance read failed', { error, organizationId });
    throw new ApiError('unavailable', 'The balance could not be read just now; retry with backoff.');
  }
  return {
    currency: ledgerCurrency,
    // The contract fixes it ("always 6"); it is USDC's scale in core/money.ts too.
    scale: 6,
    available: balance.available.toString(),
    settling: balance.settling.toString(),
    total: (balance.available + balance.settling).toString(),
    complete: true,
    reportedAt: new Date().toISOString(),
  };
}
