import { taskHandler } from '#operations/kit/taskHandler.ts';
import { parkWithdrawal, pollWithdrawal, pullFunds, returnWithdrawal, sendWithdrawal } from '#operations/withdrawal/progress.ts';

/**
 * withdrawal / every Task state (statemachines/withdrawal.asl.json). The steps, and why each is
 * safe to run twice, are in functions/operations/withdrawal/progress.ts.
 */
export const handler = taskHandler('withdrawal', { pull: pullFunds, send: sendWithdrawal, poll: pollWithdrawal, return: returnWithdrawal, park: parkWithdrawal });
