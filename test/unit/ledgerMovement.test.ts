import { describe, expect, it } from 'vitest';
import { depositEntryId, depositMovement, InvalidMovement, ledgerItems, type LedgerLeg, type LedgerMovement } from '#store/ledger.ts';

/**
 * The ledger's movement rules (docs/decisions/041): what a movement must be, and the two items it
 * writes. That the items do what they say in DynamoDB is test/integration/ledger.test.ts's.
 */
const now = new Date('2026-11-25T12:00:00.000Z');
const movement = (legs: LedgerLeg[], change: Partial<LedgerMovement> = {}): LedgerMovement => ({
  organizationId: 'org_1',
  entryId: 'payment:tx_1:hold',
  operation: { kind: 'payment', id: 'tx_1' },
  legs,
  memo: 'hold',
  now,
  ...change,
});
const hold = (amount: bigint): LedgerLeg[] => [
  { account: 'available', amount: -amount },
  { account: 'held', amount },
];

function refused(input: LedgerMovement): string {
  try {
    ledgerItems(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidMovement);
    return (error as Error).message;
  }
  throw new Error('the movement was accepted');
}

describe('a movement', () => {
  it('adds every organization account, and conditions each debited one on holding what it takes', () => {
    const { items, balanceItemIndex, journalItemIndex } = ledgerItems(movement(hold(250n)));
    expect([balanceItemIndex, journalItemIndex]).toEqual([0, 1]);
    const update = items[0]!.Update!;
    expect(update.Key).toEqual({ pk: 'ORG#org_1', sk: 'BALANCE#USDC' });
    expect(update.UpdateExpression).toBe(
      'SET entity = :entity, organizationId = :organizationId, currency = :currency, updatedAt = :now ADD #available :available, #held :held, #settling :settling',
    );
    expect(update.ConditionExpression).toBe('#available >= :availableNeeded');
    expect(update.ExpressionAttributeNames).toEqual({ '#available': 'available', '#held': 'held', '#settling': 'settling' });
    expect(update.ExpressionAttributeValues).toEqual({
      ':entity': 'balance', ':organizationId': 'org_1', ':currency': 'USDC', ':now': '2026-11-25T12:00:00.000Z',
      ':available': -250n, ':held': 250n, ':settling': 0n, ':availableNeeded': 250n,
    });
  });

  it('conditions every debited account, and none when nothing is debited', () => {
    const release = ledgerItems(movement([
      { account: 'held', amount: -30n }, { account: 'settling', amount: -20n }, { account: 'available', amount: 50n },
    ])).items[0]!.Update!;
    expect(release.ConditionExpression).toBe('#held >= :heldNeeded AND #settling >= :settlingNeeded');
    expect(release.ExpressionAttributeValues).toMatchObject({ ':heldNeeded': 30n, ':settlingNeeded': 20n });
    expect(release.ExpressionAttributeValues).not.toHaveProperty(':availableNeeded');
    const credit = ledgerItems(movement([{ account: 'external:wire', amount: -5n }, { account: 'available', amount: 5n }])).items[0]!.Update!;
    expect(credit).not.toHaveProperty('ConditionExpression');
  });

  it('nets the legs of one account before it conditions it', () => {
    const update = ledgerItems(movement([
      { account: 'available', amount: -100n }, { account: 'available', amount: 60n }, { account: 'revenue:fees', amount: 40n },
    ])).items[0]!.Update!;
    expect(update.ExpressionAttributeValues).toMatchObject({ ':available': -40n, ':availableNeeded': 40n, ':held': 0n });
  });

  it('writes its journal entry once: conditioned on its absence, legs as exact strings', () => {
    const put = ledgerItems(movement([...hold(7n), { account: 'expense:gas', amount: 0n }])).items[1]!.Put!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toEqual({
      pk: 'ORG#org_1', sk: 'JOURNAL#payment:tx_1:hold', entity: 'journalEntry', organizationId: 'org_1', entryId: 'payment:tx_1:hold',
      currency: 'USDC', operation: { kind: 'payment', id: 'tx_1' },
      legs: [{ account: 'available', amount: '-7' }, { account: 'held', amount: '7' }, { account: 'expense:gas', amount: '0' }],
      memo: 'hold', createdAt: '2026-11-25T12:00:00.000Z',
    });
  });

  it('is stamped with the time it is built when none is given', () => {
    const before = Date.now();
    const { createdAt } = ledgerItems(movement(hold(1n), { now: undefined })).items[1]!.Put!.Item! as { createdAt: string };
    expect(Date.parse(createdAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(createdAt)).toBeLessThanOrEqual(Date.now());
  });
});

describe('a movement that cannot be right is refused before anything is written', () => {
  it('needs an organization, an entry id of 1 to 400 characters, an operation and a memo of at most 500', () => {
    expect(refused(movement(hold(1n), { organizationId: '' }))).toMatch(/organization/);
    expect(refused(movement(hold(1n), { entryId: '' }))).toMatch(/entry id/);
    expect(refused(movement(hold(1n), { entryId: 'e'.repeat(401) }))).toMatch(/entry id/);
    expect(() => ledgerItems(movement(hold(1n), { entryId: 'e'.repeat(400) }))).not.toThrow();
    expect(refused(movement(hold(1n), { operation: { kind: '', id: 'tx_1' } }))).toMatch(/kind and an id/);
    expect(refused(movement(hold(1n), { operation: { kind: 'payment', id: '' } }))).toMatch(/kind and an id/);
    expect(refused(movement(hold(1n), { operation: undefined as never }))).toMatch(/kind and an id/);
    expect(refused(movement(hold(1n), { memo: 'm'.repeat(501) }))).toMatch(/memo/);
    expect(refused(movement(hold(1n), { memo: 5 as never }))).toMatch(/memo/);
    expect(() => ledgerItems(movement(hold(1n), { memo: 'm'.repeat(500) }))).not.toThrow();
  });

  it('has 2 to 50 legs', () => {
    expect(refused(movement([{ account: 'available', amount: 0n }]))).toMatch(/2 to 50 legs/);
    expect(refused(movement('legs' as never))).toMatch(/2 to 50 legs/);
    const fifty: LedgerLeg[] = [...hold(1n), ...Array.from({ length: 48 }, () => ({ account: 'expense:x' as const, amount: 0n }))];
    expect(() => ledgerItems(movement(fifty))).not.toThrow();
    expect(refused(movement([...fifty, { account: 'expense:x', amount: 0n }]))).toMatch(/2 to 50 legs/);
  });

  it('takes exact amounts of at most 38 digits', () => {
    expect(refused(movement([{ account: 'available', amount: -1 as never }, { account: 'held', amount: 1n }]))).toMatch(/bigint/);
    const largest = 10n ** 38n - 1n;
    expect(() => ledgerItems(movement([{ account: 'external:wire', amount: -largest }, { account: 'available', amount: largest }]))).not.toThrow();
    expect(refused(movement([{ account: 'external:wire', amount: -largest - 1n }, { account: 'available', amount: largest + 1n }]))).toMatch(/38 digits/);
    expect(refused(movement([{ account: 'available', amount: largest + 1n }, { account: 'external:wire', amount: -largest - 1n }]))).toMatch(/38 digits/);
    // One leg beyond, on either side, the others within.
    expect(refused(movement([{ account: 'available', amount: largest + 1n }, { account: 'external:a', amount: -1n }, { account: 'external:b', amount: -largest }]))).toMatch(/38 digits/);
    expect(refused(movement([{ account: 'held', amount: -largest - 1n }, { account: 'external:a', amount: 1n }, { account: 'external:b', amount: largest }]))).toMatch(/38 digits/);
  });

  it('names known accounts: the organization\'s three, or an external one under its prefix', () => {
    for (const account of ['external:wire', 'payout:ach', 'revenue:fees', 'expense:gas']) {
      expect(() => ledgerItems(movement([{ account: 'available', amount: 1n }, { account: account as never, amount: -1n }])), account).not.toThrow();
    }
    for (const account of ['pending', 'external:', 'external:a b', 'income:fees', 'xexternal:wire', 'external:wire ']) {
      expect(refused(movement([{ account: 'available', amount: 1n }, { account: account as never, amount: -1n }])), account).toMatch(/unknown account/);
    }
  });

  it('balances: its legs sum to zero', () => {
    expect(refused(movement([{ account: 'available', amount: -5n }, { account: 'held', amount: 4n }]))).toMatch(/sum to -1, not zero/);
  });

  it('touches the organization\'s balance: a zero leg alone does not', () => {
    expect(refused(movement([{ account: 'external:wire', amount: -5n }, { account: 'payout:ach', amount: 5n }]))).toMatch(/no leg touches/);
    expect(refused(movement([{ account: 'available', amount: 0n }, { account: 'external:wire', amount: 0n }]))).toMatch(/no leg touches/);
    expect(() => ledgerItems(movement([{ account: 'available', amount: 0n }, { account: 'held', amount: 3n }, { account: 'external:wire', amount: -3n }]))).not.toThrow();
  });
});

describe('a deposit\'s movement', () => {
  it('credits available from the rail, once per deposit id', () => {
    expect(depositEntryId('dep_1')).toBe('deposit:dep_1:credit');
    expect(depositMovement({ organizationId: 'org_1', depositId: 'dep_1', amount: 900n, rail: 'pix', memo: 'PIX', now })).toEqual({
      organizationId: 'org_1',
      entryId: 'deposit:dep_1:credit',
      operation: { kind: 'deposit', id: 'dep_1' },
      legs: [{ account: 'external:pix', amount: -900n }, { account: 'available', amount: 900n }],
      memo: 'PIX',
      now,
    });
    expect(depositMovement({ organizationId: 'org_1', depositId: 'dep_1', amount: 1n, rail: 'wire', memo: '' })).not.toHaveProperty('now');
  });

  it('is of a positive amount', () => {
    for (const amount of [0n, -1n]) {
      expect(() => depositMovement({ organizationId: 'org_1', depositId: 'dep_1', amount, rail: 'chain', memo: '' })).toThrow(InvalidMovement);
    }
  });
});
