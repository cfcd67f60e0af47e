import { ApiError, notFound, validationError } from '#platform/errors.ts';
import { providerRead } from '#platform/providerRead.ts';
import { parseDecimal, scaleOf } from '#domain/money.ts';
import { custodyProvider, ProviderNotConfigured, type CustodyWallet } from '#providers/custody.ts';
import { findWallet, type WalletRecord } from '#store/wallets.ts';
import type { EurcTopUp } from '#schemas/sandbox.ts';
import type { WalletBalances } from '#schemas/wallets.ts';

/** What the custody port knows of a wallet, beside the ledger: its own report of balances, and the sandbox faucet. */

/** A wallet opened at the custody provider (it has the provider's handle), as the port names it. */
export function custodyWalletOf(wallet: WalletRecord, externalId: string): CustodyWallet {
  return { organizationId: wallet.organizationId, walletId: wallet.id, externalId, chain: wallet.chain, currencies: wallet.currencies, home: wallet.home };
}

/**
 * The custody provider's report of what the wallet holds, as reported (not the ledger's view, which
 * GET /balance gives). 501 where no custody provider is wired, which is different from an empty
 * wallet; 503 while the wallet is still being opened there, since the provider has nothing to report
 * on yet (docs/decisions/052).
 */
export async function reportedBalances(organizationId: string, walletId: string): Promise<WalletBalances> {
  const custody = custodyProvider();
  const wallet = await findWallet(organizationId, walletId);
  if (!wallet) throw notFound('wallet');
  if (wallet.status === 'provisioning' || wallet.externalId === null) {
    throw new ApiError('unavailable', 'The wallet is still being opened at the custody provider and has no balances to report yet; retry in a few seconds.');
  }
  if (wallet.provider !== custody.name) {
    throw new ProviderNotConfigured(`The wallet is held at ${wallet.provider}, which is not wired on this environment.`);
  }
  const reported = await providerRead('wallet balances', () => custody.balances(custodyWalletOf(wallet, wallet.externalId!)));
  return {
    walletId: wallet.id,
    balances: reported.map(({ asset, amount, scale, chain }) => ({ asset, amount: amount.toString(), scale, chain })),
  };
}

const faucetAsset = 'EURC';
/** One top-up gives at most a million EURC: enough for any test, and far from DynamoDB's 38 digits however often it is called. */
const largestTopUp = parseDecimal('1000000', scaleOf(faucetAsset)!);

/**
 * The custodian's sandbox faucet credits EURC to the wallet one-for-one, as if euros had been minted
 * there. It touches the custodian's book, never the ledger (which keeps USDC), and has no idempotency
 * key: each call gives again (docs/decisions/062). 409 `conflict` while the wallet cannot receive.
 */
export async function topUpEurc(organizationId: string, walletId: string, decimal: string): Promise<EurcTopUp> {
  const custody = custodyProvider();
  const amount = parseDecimal(decimal, scaleOf(faucetAsset)!);
  if (amount <= 0n || amount > largestTopUp) {
    throw validationError([{ path: ['amount'], message: 'must be more than 0 and at most 1000000' }], 'The top-up amount is out of range.');
  }
  const wallet = await findWallet(organizationId, walletId);
  if (!wallet) throw notFound('wallet');
  if (wallet.status !== 'active' || wallet.externalId === null) {
    throw new ApiError('conflict', `The wallet is ${wallet.status} and cannot receive a top-up; retry once it is active.`);
  }
  if (wallet.provider !== custody.name || !custody.sandboxTopUp) {
    throw new ProviderNotConfigured(`The custody provider of this wallet (${wallet.provider}) has no sandbox faucet wired here.`);
  }
  const position = await custody.sandboxTopUp(custodyWalletOf(wallet, wallet.externalId), faucetAsset, amount);
  return { walletId: wallet.id, balance: { asset: faucetAsset, amount: position.amount.toString(), scale: 6 } };
}
