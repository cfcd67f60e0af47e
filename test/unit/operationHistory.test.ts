import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyLines } from '../../lib/ops/operationHistory.ts';
import { checkExecutionName } from '../../lib/local/stepFunctionsLimits.ts';
import { executionArnOf, stateMachineArn } from '#platform/workflowStepFunctions.ts';
import { executionName, type WorkflowHistoryEvent } from '#platform/workflow.ts';

/**
 * The one formatter of `admin ops history`, fed a history as Step Functions' GetExecutionHistory
 * returns it (test/unit/fixtures/payment-history.aws.json: a Lambda that timed out once and was
 * retried, a poll, a task failure caught into ParkPayment, the Fail state).
 */
const recorded = JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures/payment-history.aws.json'), 'utf8')) as {
  events: WorkflowHistoryEvent[];
};

describe('historyLines on an AWS history', () => {
  const lines = historyLines(recorded.events, [
    { status: 'FUNDED', at: '2026-11-20T09:59:59.000Z', detail: '100.00 USDC held from the home wallet' },
    { status: 'NEEDS_ATTENTION', at: '2026-11-20T10:01:13.100Z', detail: 'stopped by PaymentNotFound; funds held for a person' },
    { status: 'REFUNDED', at: '2026-11-21T08:00:00.000Z', detail: 'resolved by operations: nothing left the bank, ticket 12' },
  ]);
  const texts = lines.map((line) => `${line.source}: ${line.text}`);

  it('reads every state entered and left, with how long it took, in time order', () => {
    expect(texts).toEqual([
      'operation: FUNDED: 100.00 USDC held from the home wallet',
      'workflow: execution started',
      'workflow: entered SubmitPayout (task)',
      'workflow: task SubmitPayout failed: Sandbox.Timedout',
      'workflow: retry 1 of SubmitPayout',
      'workflow: left SubmitPayout after 62.0 s: outcome processing, next wait 10 s',
      'workflow: entered AfterSubmit (choice)',
      'workflow: left AfterSubmit after 10 ms',
      'workflow: entered WaitForPayout (wait)',
      'workflow: waited in WaitForPayout 10.0 s',
      'workflow: entered PollPayout (task)',
      'workflow: task PollPayout failed: PaymentNotFound',
      'workflow: left PollPayout after 860 ms',
      'workflow: entered ParkPayment (task)',
      'operation: parked NEEDS_ATTENTION: stopped by PaymentNotFound; funds held for a person',
      'workflow: left ParkPayment after 490 ms',
      'workflow: entered PaymentParked (fail)',
      'workflow: execution failed: PaymentParked',
      'operator: REFUNDED: resolved by operations: nothing left the bank, ticket 12',
    ]);
    expect(lines.map((line) => line.at)).toEqual([...lines.map((line) => line.at)].sort());
  });

  it('prints no task input, parameter, output or cause: no personal data, no account numbers', () => {
    const all = texts.join('\n');
    expect(all).not.toContain('002010077777777771');
    expect(all).not.toContain('arn:aws');
    expect(all).not.toContain('org_01ABC');
  });
});

describe('execution names', () => {
  it('are <organization>-<id> when that is a valid name, and show the id when it is not', () => {
    expect(executionName('org_01ABC', 'invoice-2026-0042')).toBe('org_01ABC-invoice-2026-0042');
    const colon = executionName('org_01ABC', 'onramp:pix.0001');
    expect(colon).toMatch(/^onramp_pix_0001-[0-9a-f]{16}$/);
    const long = executionName('org_01JDZZZZZZZZZZZZZZZZZZZZZZ', `chain-deposit-polygon:0x${'ab'.repeat(32)}`);
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/^chain-deposit-polygon_0xabab[0-9a-b]+-[0-9a-f]{16}$/);
    // Same operation, same name; another organization's operation of the same id, another name.
    expect(executionName('org_01ABC', 'onramp:pix.0001')).toBe(colon);
    expect(executionName('org_01XYZ', 'onramp:pix.0001')).not.toBe(colon);
    expect(executionName('org_01ABC', 'onramp_pix_0001')).not.toBe(colon);
  });

  it('are names StartExecution takes, whatever the organization and the operation id (the local runner refuses what Step Functions refuses)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 300, unit: 'binary' }), (organizationId, operationId) => {
        checkExecutionName(executionName(organizationId, operationId));
      }),
      { seed: 28, numRuns: 2000 },
    );
    expect(() => checkExecutionName(`org_01ABC-${'x'.repeat(70)}`)).not.toThrow();
    expect(() => checkExecutionName(`org_01ABC-${'x'.repeat(71)}`)).toThrow(/length less than or equal to 80/);
    for (const name of ['org_1-onramp:pix', 'org 1', 'a/b', 'a#b', 'a\u0007b', 'a\u0085b']) expect(() => checkExecutionName(name), name).toThrow(/Invalid Name/);
  });

  it('give the execution ARN GetExecutionHistory reads', () => {
    const machine = stateMachineArn('arn:aws:states:eu-west-1:123456789012:stateMachine:payments-production-', 'payment');
    expect(executionArnOf(machine, 'org_01ABC-inv-1')).toBe('arn:aws:states:eu-west-1:123456789012:execution:payments-production-payment:org_01ABC-inv-1');
  });
});
