import { taskHandler } from '#operations/kit/taskHandler.ts';
import { creditDepositHome, moveDepositHome, parkChainDeposit } from '#operations/chainDeposit/progress.ts';

/**
 * chainDeposit / every Task state (statemachines/chain-deposit.asl.json): moving an on-chain
 * deposit home. The steps, and why each is safe to run twice, are in functions/operations/chainDeposit/progress.ts.
 */
export const handler = taskHandler('chainDeposit', { move: moveDepositHome, credit: creditDepositHome, park: parkChainDeposit }, 5);
