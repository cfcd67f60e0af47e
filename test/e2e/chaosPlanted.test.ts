import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChaos } from '../chaos/harness.ts';
import { plantBug } from '../chaos/plantedBugs.ts';
import { startWorld, type World } from '../chaos/world.ts';

/**
 * The chaos harness checked against bugs planted on purpose (test/chaos/plantedBugs.ts): each must
 * be caught as a violation and shrunk by fast-check to a sequence of at most three commands. A
 * harness that passes a planted bug proves nothing about the service. Shrinking replays bursts of
 * payments for a minute or more on a busy machine (60 s for the quicker one in CI), so the file runs
 * in `npm run test:long` (CHAOS_PLANTED=all) and is skipped by `npm test`, whose time CI bounds.
 */
const bugs = ['movedTwiceOnRedelivery', 'balanceConditionDropped'] as const;
let world: World;

beforeAll(async () => {
  world = await startWorld({ dynamoEndpoint: process.env.DYNAMODB_ENDPOINT });
});

afterAll(async () => {
  await world?.close();
});

describe.runIf(process.env.CHAOS_PLANTED === 'all')('the chaos workload catches planted bugs', () => {
  it.each(bugs)('%s: a violation, shrunk to a short sequence', async (bug) => {
    const remove = plantBug(bug);
    try {
      // A seed whose first runs send a burst past the balance and a single payment or withdrawal
      // (the generator's slots moved with the mix of issue 29: seed 7 no longer sent such a burst).
      const figures = await runChaos({ world, seed: 8, runs: 10, commandsPerRun: 12, organizations: 1 });
      expect(figures.violations, JSON.stringify(figures)).toBe(1);
      expect(figures.failure).toMatch(bug === 'balanceConditionDropped' ? /is negative/ : /moved money twice in one step/);
      expect(figures.shrunkTo!.length, figures.shrunkTo!.join('\n')).toBeLessThanOrEqual(3);
    } finally {
      remove();
    }
  }, 600_000);
});
