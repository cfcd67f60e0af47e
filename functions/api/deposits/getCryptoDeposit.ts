import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { getCryptoDeposit } from '#contract/routes.ts';
import { cryptoDepositAddresses } from '#operations/chainDeposit/addresses.ts';

/** GET /treasury/crypto-deposit: where USDC can be sent on chain, each address checked (functions/operations/chainDeposit/addresses.ts). */
export const handler = endpoint(getCryptoDeposit, async ({ caller }) => ok(await cryptoDepositAddresses(caller.organizationId)));
