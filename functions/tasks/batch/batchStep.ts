import { taskHandler } from '#operations/kit/taskHandler.ts';
import { followItems, parkBatch, startItems, type BatchOutcome, type BatchRef } from '#operations/batch/progress.ts';

/** The batch workflow's one Task function (statemachines/batch.asl.json names the step). */
export const handler = taskHandler<BatchOutcome, BatchRef>('batch', { start: startItems, follow: followItems, park: parkBatch });
