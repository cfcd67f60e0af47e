import { taskHandler } from '#operations/kit/taskHandler.ts';
import { depositOffRamp, followOffRampPayout, holdOffRampFunds, parkOffRamp, releaseOffRampHold } from '#operations/offRamp/progress.ts';

/**
 * offRamp / every Task state (statemachines/offramp.asl.json). The steps, and why each is safe to
 * run twice, are in functions/operations/offRamp/progress.ts.
 */
export const handler = taskHandler('offRamp', { hold: holdOffRampFunds, deposit: depositOffRamp, follow: followOffRampPayout, release: releaseOffRampHold, park: parkOffRamp });
