import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/logger.ts';
import { getBalance } from '#contract/routes.ts';
import { ledgerCurrency, readBalance, type LedgerBalance } from '#store/ledger.ts';
import type { Balance } from '#schemas/wallets.ts';

/**
 * GET /balance: the organization's USDC as the ledger holds it, in exact minor units.
 * `total` is available + settling; `held` is not shown: it is already committed to payments in
 * flight (debited from `available` when the payment was accepted). One strongly consistent read,
 * so the figures are either whole (`complete: true`) or the request fails with 503 `unavailable`:
 * there is no partial result to show as a floor.
 */
export const handler = endpoint(getBalance, async ({ caller }) => {
  let balance: LedgerBalance;
  try {
    balance = await readBalance(caller.organizationId);
  } catch (error) {
    logger.error('balance read failed', { error, organizationId: caller.organizationId });
    throw new ApiError('unavailable', 'The balance could not be read just now; retry with backoff.');
  }
  const body: Balance = {
    currency: ledgerCurrency,
    // The contract fixes it ("always 6"); it is USDC's scale in core/money.ts too.
    scale: 6,
    available: balance.available.toString(),
    settling: balance.settling.toString(),
    total: (balance.available + balance.settling).toString(),
    complete: true,
    reportedAt: new Date().toISOString(),
  };
  return ok(body);
});
