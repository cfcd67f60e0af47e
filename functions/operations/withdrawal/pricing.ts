import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { ApiError, validationError } from '#platform/errors.ts';
import { gasOracle } from '#providers/chain.ts';
import { depositNetworksOf } from '#domain/cryptoDeposit.ts';
import { formatDecimal } from '#domain/money.ts';
import { requestedAmount } from '#operations/kit/amount.ts';
import { withdrawalCurrency } from '#operations/withdrawal/view.ts';

/**
 * The price of a withdrawal (GET /treasury/withdrawals/quote, and again when POST
 * /treasury/withdrawals accepts one): fee = the crossing home → network (0 on the home network;
 * `crossingFees`, the figure deposits and quotes use) + gas with headroom; net = amount − fee.
 *
 * The networks are those of the crypto deposit list; the destination is an EVM address, so a
 * listed network of another format (Solana, Tron) is refused like an unknown one.
 */
export interface WithdrawalPrice {
  network: string;
  amount: bigint;
  crossingFee: bigint;
  gasFee: bigint;
  fee: bigint;
  net: bigint;
}

/**
 * Gas is quoted with half again on top: gas prices move between pricing and broadcast, and a send
 * that runs out of gas fails on chain. Rounded up to the minor unit (never below the estimate).
 */
export function gasWithHeadroom(estimate: bigint): bigint {
  return (estimate * 3n + 1n) / 2n;
}

/** A USDC decimal string in minor units; `path` names the field in the 400 issue. */
export function withdrawalAmountOf(text: string, currency: string, path: (string | number)[]): bigint {
  return requestedAmount(text, currency, path, { currency: withdrawalCurrency, refusal: `only ${withdrawalCurrency} is withdrawn` });
}

export async function priceWithdrawal(input: { homeNetwork: string; network: string; amount: bigint; amountPath: (string | number)[] }): Promise<WithdrawalPrice> {
  const listed = depositNetworksOf(input.homeNetwork)?.find((entry) => entry.network === input.network);
  if (!listed) {
    throw new ApiError('unsupported_network', `USDC is not withdrawn on ${input.network}; the networks are those of GET /treasury/crypto-deposit.`);
  }
  if (listed.format !== 'evm') {
    throw new ApiError('unsupported_network', `${input.network} has no EVM addresses; withdrawals go to an EVM address on an EVM network.`);
  }
  let estimate: bigint;
  try {
    estimate = await gasOracle().estimate(input.network);
  } catch (error) {
    if (error instanceof ProviderUnavailable) {
      throw new ApiError('quote_unavailable', `The gas price on ${input.network} is momentarily unavailable; retry shortly.`);
    }
    throw error;
  }
  const gasFee = gasWithHeadroom(estimate);
  const fee = listed.fee + gasFee;
  if (input.amount <= fee) {
    // Nothing would arrive: refused as an invalid amount (docs/decisions/060), not priced at zero.
    throw validationError([
      { path: input.amountPath, message: `must be more than the fee on ${input.network} (${formatDecimal(fee, 6)} ${withdrawalCurrency})` },
    ]);
  }
  return { network: input.network, amount: input.amount, crossingFee: listed.fee, gasFee, fee, net: input.amount - fee };
}
