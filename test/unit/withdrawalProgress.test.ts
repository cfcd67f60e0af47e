import { describe, expect, it } from 'vitest';
import { confirmationWaitSeconds, outcomeOf } from '#operations/withdrawal/progress.ts';
import { isWithdrawalRunning } from '#operations/withdrawal/view.ts';
import { withdrawalOutcomeBands } from '#contract/outcomeBands.ts';
import { withdrawalBand } from '#simulators/chain.ts';
import { WithdrawalState } from '#schemas/withdrawals.ts';

describe('withdrawal workflow routing', () => {
  it('sends every status to the step that can move it, and ends the workflow on the others', () => {
    const routed = Object.fromEntries(WithdrawalState.options.map((state) => [state, outcomeOf(state)]));
    expect(routed).toEqual({
      INITIATED: 'pull', PULLING: 'pull', HELD: 'held', CROSSING: 'held', SENDING: 'sending', PENDING_RETRY: 'retry', RETURNING: 'returning',
      SENT: 'done', RETURNED: 'done', FAILED: 'done', IN_DOUBT: 'done', NEEDS_ATTENTION: 'done',
    });
  });

  it('reports running exactly while the workflow still has a step to take', () => {
    for (const state of WithdrawalState.options) expect(isWithdrawalRunning(state), state).toBe(outcomeOf(state) !== 'done');
  });

  it('backs off polling with the age of the send, 5 s to 10 min', () => {
    expect(confirmationWaitSeconds(0)).toBe(5);
    expect(confirmationWaitSeconds(600_000)).toBe(60);
    expect(confirmationWaitSeconds(86_400_000)).toBe(600);
  });
});

describe('withdrawal outcome bands', () => {
  it('reads the band from the cents of the USDC withdrawn', () => {
    expect(withdrawalBand(100_910_000n)).toBe(91);
    expect(withdrawalBand(100_919_999n)).toBe(91);
    expect(withdrawalBand(5_000_000n)).toBe(0);
  });

  it('lists each band once with its final state', () => {
    expect(withdrawalOutcomeBands.map(({ cents, outcome }) => [cents, outcome])).toEqual([
      [91, 'FAILED'], [92, 'RETURNED'], [93, 'SENT'], [94, 'IN_DOUBT'], [95, 'NEEDS_ATTENTION'],
    ]);
  });
});
