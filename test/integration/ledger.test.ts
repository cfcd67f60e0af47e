import { randomBytes, randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GetItemCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  applyMovement, cancellationCodes, creditDeposit, InsufficientFunds, InvalidMovement, journalTotals, ledgerItems, listJournalEntries,
  MovementAlreadyApplied, organizationAccounts, readBalance, TransactionConflict, type LedgerAccount, type LedgerLeg, type LedgerMovement,
} from '#store/ledger.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { parseDecimal } from '#domain/money.ts';
import { useFreshTable } from '../support/table.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';

const usdc = (text: string) => parseDecimal(text, 6);
const newOrg = () => `org_ledger_${randomBytes(5).toString('hex')}`;

function hold(organizationId: string, id: string, amount: bigint): LedgerMovement {
  return {
    organizationId,
    entryId: `payment:${id}:hold`,
    operation: { kind: 'payment', id },
    legs: [
      { account: 'available', amount: -amount },
      { account: 'held', amount },
    ],
    memo: `hold for payment ${id}`,
  };
}

/** The error a promise was rejected with (fails the test if it resolved). */
async function refusal(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  expect(outcome, 'expected a refusal').toBeInstanceOf(Error);
  return outcome!;
}

async function journalEntryExists(organizationId: string, entryId: string): Promise<boolean> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.journalEntry(organizationId, entryId), ConsistentRead: true }),
  );
  return Item !== undefined;
}

beforeAll(async () => {
  await useFreshTable('ledger');
});

describe('movements', () => {
  it('a credit, then a hold, a release and a capture move exactly what they say', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('100'), rail: 'wire', memo: 'wire in' });
    expect(await readBalance(org)).toMatchObject({ available: usdc('100'), held: 0n, settling: 0n, updatedAt: expect.any(String) });

    await applyMovement(hold(org, 'tx-1', usdc('30.000001')));
    await applyMovement({
      organizationId: org, entryId: 'payment:tx-1:release-part', operation: { kind: 'payment', id: 'tx-1' }, memo: 'partial release',
      legs: [{ account: 'held', amount: -usdc('10') }, { account: 'available', amount: usdc('10') }],
    });
    await applyMovement({
      organizationId: org, entryId: 'payment:tx-1:capture', operation: { kind: 'payment', id: 'tx-1' }, memo: 'capture',
      legs: [
        { account: 'held', amount: -usdc('20.000001') },
        { account: 'payout:sim-mx', amount: usdc('19.5') },
        { account: 'revenue:fees', amount: usdc('0.500001') },
        { account: 'expense:network-fees', amount: 0n },
      ],
    });
    const balance = await expectLedgerInvariant(org);
    expect(balance).toMatchObject({ available: usdc('79.999999'), held: 0n, settling: 0n });

    const entries = await listJournalEntries(org);
    expect(entries.map((entry) => entry.entryId).sort()).toEqual(
      ['deposit:dep-1:credit', 'payment:tx-1:capture', 'payment:tx-1:hold', 'payment:tx-1:release-part'].sort(),
    );
    const deposit = entries.find((entry) => entry.entryId === 'deposit:dep-1:credit')!;
    expect(deposit).toMatchObject({
      organizationId: org, currency: 'USDC', operation: { kind: 'deposit', id: 'dep-1' }, memo: 'wire in',
      legs: [{ account: 'external:wire', amount: -usdc('100') }, { account: 'available', amount: usdc('100') }],
    });
  });

  it('a debit beyond what an account holds is InsufficientFunds, with the exact available, and writes nothing', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('5.000001'), rail: 'pix', memo: 'pix in' });
    const error = await refusal(applyMovement(hold(org, 'tx-big', usdc('5.000002'))));
    expect(error).toBeInstanceOf(InsufficientFunds);
    expect(error.name).toBe('InsufficientFunds');
    expect((error as InsufficientFunds).available).toBe(usdc('5.000001'));
    expect((error as InsufficientFunds).needed).toEqual({ available: usdc('5.000002') });
    expect(await journalEntryExists(org, 'payment:tx-big:hold')).toBe(false);

    // The held account is guarded the same way: releasing more than is held is refused.
    await applyMovement(hold(org, 'tx-small', usdc('1')));
    const release = await refusal(applyMovement({
      organizationId: org, entryId: 'payment:tx-small:release', operation: { kind: 'payment', id: 'tx-small' }, memo: 'release',
      legs: [{ account: 'held', amount: -usdc('1.000001') }, { account: 'available', amount: usdc('1.000001') }],
    }));
    expect(release).toBeInstanceOf(InsufficientFunds);
    expect((release as InsufficientFunds).balance).toMatchObject({ available: usdc('4.000001'), held: usdc('1') });
    await expectLedgerInvariant(org);
  });

  it('a debit on an organization that never had a movement is InsufficientFunds with available 0, and creates nothing', async () => {
    const org = newOrg();
    const error = await refusal(applyMovement(hold(org, 'tx-1', 1n)));
    expect(error).toBeInstanceOf(InsufficientFunds);
    expect((error as InsufficientFunds).available).toBe(0n);
    expect(await readBalance(org)).toEqual({ available: 0n, held: 0n, settling: 0n, updatedAt: null });
    await expectLedgerInvariant(org);
  });

  it('settling USDC counts in no spendable account until it is moved home', async () => {
    const org = newOrg();
    await applyMovement({
      organizationId: org, entryId: 'deposit:dep-chain:arrive', operation: { kind: 'deposit', id: 'dep-chain' }, memo: 'arrived on another network',
      legs: [{ account: 'external:chain', amount: -usdc('7') }, { account: 'settling', amount: usdc('7') }],
    });
    expect((await refusal(applyMovement(hold(org, 'tx-1', 1n))))).toBeInstanceOf(InsufficientFunds);
    await applyMovement({
      organizationId: org, entryId: 'deposit:dep-chain:home', operation: { kind: 'deposit', id: 'dep-chain' }, memo: 'moved home',
      legs: [{ account: 'settling', amount: -usdc('7') }, { account: 'available', amount: usdc('7') }],
    });
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: usdc('7'), settling: 0n });
  });
});

describe('concurrency', () => {
  it('of 50 concurrent holds worth more than the balance, only ones that fit pass and the balance never goes below zero', async () => {
    const org = newOrg();
    const balance = usdc('1000');
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: balance, rail: 'wire', memo: 'wire in' });
    // Integers from crypto.randomInt, made bigint at once: 0.000001 to 60 USDC each, ~1,500 USDC in all.
    const amounts = Array.from({ length: 50 }, () => BigInt(randomInt(1, 60_000_001)));
    expect(amounts.reduce((sum, amount) => sum + amount, 0n)).toBeGreaterThan(balance);

    const results = await Promise.allSettled(amounts.map((amount, index) => applyMovement(hold(org, `tx-${index}`, amount))));
    const passed = amounts.filter((_, index) => results[index]!.status === 'fulfilled');
    const heldTotal = passed.reduce((sum, amount) => sum + amount, 0n);
    expect(heldTotal).toBeLessThanOrEqual(balance);

    const after = await expectLedgerInvariant(org);
    expect(after.available).toBe(balance - heldTotal);
    expect(after.held).toBe(heldTotal);
    results.forEach((result, index) => {
      if (result.status === 'fulfilled') return;
      const error = result.reason as Error;
      // Nothing but a refusal for funds: contention was retried, never surfaced.
      expect(error, `hold ${index}: ${error.message}`).toBeInstanceOf(InsufficientFunds);
      const { available } = error as InsufficientFunds;
      // Read after the refusal, while only holds ran (available only fell): it did not cover the hold,
      // and it is no lower than where the balance ended.
      expect(available).toBeLessThan(amounts[index]!);
      expect(available).toBeGreaterThanOrEqual(after.available);
      // Exactly the ones that fit: a refused hold would not fit even in what is left at the end.
      expect(amounts[index]!).toBeGreaterThan(after.available);
    });
    // The journal holds the deposit and exactly the holds that passed.
    const journal = await listJournalEntries(org);
    const passedIds = results.flatMap((result, index) => (result.status === 'fulfilled' ? [`payment:tx-${index}:hold`] : []));
    expect(journal.map((entry) => entry.entryId).sort()).toEqual(['deposit:dep-1:credit', ...passedIds].sort());
  });

  it('the same entry applied twice applies once', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('10'), rail: 'wire', memo: 'wire in' });
    await applyMovement(hold(org, 'tx-1', usdc('4')));
    const again = await refusal(applyMovement(hold(org, 'tx-1', usdc('4'))));
    expect(again).toBeInstanceOf(MovementAlreadyApplied);
    expect(again.name).toBe('MovementAlreadyApplied');
    // A retried deposit credit is refused the same way, and is not credited twice.
    expect(await refusal(creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('10'), rail: 'wire', memo: 'wire in' })))
      .toBeInstanceOf(MovementAlreadyApplied);
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: usdc('6'), held: usdc('4') });
  });

  it('a retry of an applied debit reads as already applied even when the funds are gone since', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('4'), rail: 'wire', memo: 'wire in' });
    await applyMovement(hold(org, 'tx-1', usdc('4')));
    expect(await refusal(applyMovement(hold(org, 'tx-1', usdc('4'))))).toBeInstanceOf(MovementAlreadyApplied);
  });

  it('20 concurrent copies of one entry apply exactly once', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('100'), rail: 'wire', memo: 'wire in' });
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => applyMovement(hold(org, 'tx-1', usdc('25')))));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(MovementAlreadyApplied);
    }
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: usdc('75'), held: usdc('25') });
  });

  it('20 concurrent copies of one deposit credit it exactly once', async () => {
    const org = newOrg();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => creditDeposit({ organizationId: org, depositId: 'dep-x', amount: usdc('3'), rail: 'chain', memo: 'in' })),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: usdc('3') });
  });
});

describe('contention', () => {
  /**
   * DynamoDB Local runs transactions one at a time and never cancels one for contention; DynamoDB
   * does (code TransactionConflict) when transactions on one balance item overlap. This makes the
   * next `times` TransactWriteItems calls fail that way before they are sent.
   */
  function conflictNext(times: number): { sent: () => number; restore: () => void } {
    let sent = 0;
    const name = 'testTransactionConflict';
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        sent += 1;
        if (sent > times) return next(args);
        const items = (args.input as { TransactItems: unknown[] }).TransactItems;
        throw new TransactionCanceledException({
          message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]',
          $metadata: {},
          CancellationReasons: items.map((_, index) => ({ Code: index === 0 ? 'TransactionConflict' : 'None' })),
        });
      },
      { step: 'initialize', name },
    );
    return { sent: () => sent, restore: () => dynamo().middlewareStack.remove(name) };
  }

  it('a movement cancelled only for contention wrote nothing and is retried until it applies', async () => {
    const org = newOrg();
    const conflicts = conflictNext(3);
    try {
      await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('1'), rail: 'wire', memo: 'in' });
    } finally {
      conflicts.restore();
    }
    expect(conflicts.sent()).toBe(4);
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: usdc('1') });
  });

  it('contention that does not clear is given up with the SDK error, nothing written', async () => {
    const org = newOrg();
    const conflicts = conflictNext(Number.POSITIVE_INFINITY);
    let error: Error;
    try {
      error = await refusal(creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('1'), rail: 'wire', memo: 'in' }));
    } finally {
      conflicts.restore();
    }
    expect(error.name).toBe('TransactionCanceledException');
    expect(cancellationCodes(error)).toEqual(['TransactionConflict', 'None']);
    expect(conflicts.sent()).toBeGreaterThan(1);
    expect(await readBalance(org)).toMatchObject({ available: 0n, updatedAt: null });
  });
});

describe("the caller's own items", () => {
  it('are written in the same transaction as the movement', async () => {
    const org = newOrg();
    const marker = { pk: `TEST#${org}`, sk: 'MARKER' };
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('2'), rail: 'wire', memo: 'in' }, [
      { Put: { TableName: tableName(), Item: { ...marker, entity: 'testMarker' }, ConditionExpression: 'attribute_not_exists(pk)' } },
    ]);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: marker, ConsistentRead: true }));
    expect(Item?.entity).toBe('testMarker');
  });

  it('a failed condition of theirs is TransactionConflict naming it, and nothing is written', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: usdc('2'), rail: 'wire', memo: 'in' });
    const stateUpdate = {
      Update: {
        TableName: tableName(), Key: { pk: `TEST#${org}`, sk: 'STATE' }, UpdateExpression: 'SET #state = :next',
        ConditionExpression: '#state = :expected', ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':next': 'HELD', ':expected': 'PENDING' },
      },
    };
    const outbox = { Put: { TableName: tableName(), Item: { pk: `TEST#${org}`, sk: 'OUTBOX', entity: 'testOutbox' } } };
    // Also beyond the balance: the caller's stale premise is what it needs to hear about.
    const error = await refusal(applyMovement(hold(org, 'tx-1', usdc('3')), [outbox, stateUpdate]));
    expect(error).toBeInstanceOf(TransactionConflict);
    expect(error.name).toBe('TransactionConflict');
    expect((error as TransactionConflict).extraCodes).toEqual(['None', 'ConditionalCheckFailed']);
    expect(cancellationCodes(error.cause)).toEqual(['ConditionalCheckFailed', 'None', 'None', 'ConditionalCheckFailed']);
    expect(await journalEntryExists(org, 'payment:tx-1:hold')).toBe(false);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: { pk: `TEST#${org}`, sk: 'OUTBOX' }, ConsistentRead: true }));
    expect(Item).toBeUndefined();
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: usdc('2'), held: 0n });
  });

  it('cancellationCodes is undefined for anything but a cancelled transaction', () => {
    expect(cancellationCodes(new Error('nope'))).toBeUndefined();
    expect(cancellationCodes(undefined)).toBeUndefined();
  });
});

describe('refused movements', () => {
  const org = 'org_refused';
  const base = { organizationId: org, entryId: 'x:1:y', operation: { kind: 'x', id: '1' }, memo: 'm' };
  it.each<[string, LedgerLeg[]]>([
    ['legs that do not sum to zero', [{ account: 'available', amount: 5n }, { account: 'external:wire', amount: -4n }]],
    ['no organization leg', [{ account: 'external:wire', amount: -5n }, { account: 'revenue:fees', amount: 5n }]],
    ['only a zero organization leg', [{ account: 'available', amount: 0n }, { account: 'external:wire', amount: -5n }, { account: 'revenue:fees', amount: 5n }]],
    ['one leg', [{ account: 'available', amount: 0n }]],
    ['an unknown account', [{ account: 'available', amount: 5n }, { account: 'bank' as never, amount: -5n }]],
    ['an amount that is not a bigint', [{ account: 'available', amount: 5 as never }, { account: 'external:wire', amount: -5n }]],
    ['an amount beyond 38 digits', [{ account: 'available', amount: 10n ** 38n }, { account: 'external:wire', amount: -(10n ** 38n) }]],
  ])('%s is refused before anything is sent', async (_label, legs) => {
    expect(() => ledgerItems({ ...base, legs })).toThrow(InvalidMovement);
    expect(await refusal(applyMovement({ ...base, legs }))).toBeInstanceOf(InvalidMovement);
    expect(await journalEntryExists(org, base.entryId)).toBe(false);
  });

  it('a deposit of zero is refused', async () => {
    expect(await refusal(creditDeposit({ organizationId: org, depositId: 'd0', amount: 0n, rail: 'wire', memo: 'm' }))).toBeInstanceOf(InvalidMovement);
  });
});

describe('exactness', () => {
  it('amounts beyond 2^53 are written and read back exactly', async () => {
    const org = newOrg();
    const huge = 10n ** 20n + 1n; // 100,000,000,000,000.000001 USDC: far past what a double holds exactly
    await creditDeposit({ organizationId: org, depositId: 'dep-huge', amount: huge, rail: 'wire', memo: 'huge' });
    await applyMovement(hold(org, 'tx-1', 3n));
    expect(await readBalance(org)).toMatchObject({ available: huge - 3n, held: 3n });
    expect(await journalTotals(org)).toEqual({ available: huge - 3n, held: 3n, settling: 0n });
    // As stored: DynamoDB's own decimal, not a float's rendering.
    const { Item } = await dynamo().send(new GetItemCommand({ TableName: tableName(), Key: { pk: { S: `ORG#${org}` }, sk: { S: 'BALANCE#USDC' } }, ConsistentRead: true }));
    expect(Item?.available).toEqual({ N: '99999999999999999998' });
    expect(Number.isSafeInteger(Number(huge))).toBe(false);
    await expectLedgerInvariant(org);
  });
});

describe('property: any sequence of movements keeps the invariant', () => {
  type Step = { kind: 'credit' | 'hold' | 'release' | 'capture' | 'arrive' | 'home'; amount: bigint; replay: boolean };
  const legsOf = (step: Step): LedgerLeg[] => {
    const a = step.amount;
    switch (step.kind) {
      case 'credit': return [{ account: 'external:wire', amount: -a }, { account: 'available', amount: a }];
      case 'hold': return [{ account: 'available', amount: -a }, { account: 'held', amount: a }];
      case 'release': return [{ account: 'held', amount: -a }, { account: 'available', amount: a }];
      case 'capture': return [{ account: 'held', amount: -a }, { account: 'payout:sim', amount: a - a / 100n }, { account: 'revenue:fees', amount: a / 100n }];
      case 'arrive': return [{ account: 'external:chain', amount: -a }, { account: 'settling', amount: a }];
      case 'home': return [{ account: 'settling', amount: -a }, { account: 'available', amount: a }];
    }
  };
  const step = fc.record({
    kind: fc.constantFrom<Step['kind']>('credit', 'hold', 'release', 'capture', 'arrive', 'home'),
    // Up to 10^21 minor units: small ones and ones past 2^53 in the same run.
    amount: fc.oneof(fc.bigInt({ min: 1n, max: 1_000_000n }), fc.bigInt({ min: 1n, max: 10n ** 21n })),
    replay: fc.boolean(),
  });

  it('matches a model of the balance, refusing exactly the overdrafts and the replays', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const org = newOrg();
        const model: Record<LedgerAccount, bigint> = { available: 0n, held: 0n, settling: 0n };
        let index = 0;
        for (const current of steps) {
          // A replay re-sends the previous movement under its own entry id: it must never apply twice.
          const entryIndex = current.replay && index > 0 ? index - 1 : index;
          const previous = steps[entryIndex]!;
          const movement: LedgerMovement = {
            organizationId: org, entryId: `prop:${entryIndex}:${previous.kind}`, operation: { kind: 'prop', id: String(entryIndex) },
            legs: legsOf(previous), memo: previous.kind,
          };
          const next = { ...model };
          for (const leg of movement.legs) if ((organizationAccounts as readonly string[]).includes(leg.account)) next[leg.account as LedgerAccount] += leg.amount;
          const alreadyApplied = entryIndex !== index && (await journalEntryExists(org, movement.entryId));
          const overdraws = organizationAccounts.some((account) => next[account] < 0n);
          const outcome = await applyMovement(movement).then(() => undefined, (error: Error) => error);
          if (alreadyApplied) expect(outcome).toBeInstanceOf(MovementAlreadyApplied);
          else if (overdraws) expect(outcome).toBeInstanceOf(InsufficientFunds);
          else {
            expect(outcome).toBeUndefined();
            Object.assign(model, next);
          }
          index += 1;
        }
        const balance = await expectLedgerInvariant(org);
        expect({ available: balance.available, held: balance.held, settling: balance.settling }).toEqual(model);
      }),
      { numRuns: 30 },
    );
    // 30 runs of up to 12 movements, each a few DynamoDB calls: 5 s alone, 50 s in a loaded full run.
  }, 120_000);
});
