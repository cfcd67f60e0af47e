import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { GetCommand, NumberValue } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons, dynamoExact, queryPrefix, tableName, transactWrite, type TransactItem } from './client.ts';
import { keys } from './keys.ts';

/**
 * The ledger: double entry, exact, in the single table (docs/decisions/041-ledger.md).
 *
 * - One balance item per organization and currency, `ORG#<org> / BALANCE#USDC`: `available`,
 *   `held` (committed to payments in flight) and `settling` (USDC arriving on another network),
 *   DynamoDB numbers in USDC minor units (scale 6), exact.
 * - One journal entry per movement, `ORG#<org> / JOURNAL#<entryId>`: legs that sum to zero.
 *
 * A movement is the balance Update (ADD of each organization account's delta, conditioned so
 * that no account can go below zero) and the journal Put (conditioned on the entry not existing,
 * so it can never be applied twice), in the same TransactWriteItems as the caller's own state
 * change and outbox Put. Amounts are bigint end to end: written as bigint (the marshaller emits
 * the exact decimal), read through `dynamoExact()` as NumberValue, never through a JS number.
 */
export const balanceEntity = 'balance';
export const journalEntity = 'journalEntry';

/** The ledger keeps USDC only: the balance the contract shows (scale 6). */
export const ledgerCurrency = 'USDC';

export const organizationAccounts = ['available', 'held', 'settling'] as const;
export type LedgerAccount = (typeof organizationAccounts)[number];

/** The other side of a movement: free-form names under a prefix; they never touch a balance item. */
export const externalAccountPrefixes = ['external', 'payout', 'revenue', 'expense'] as const;
export type ExternalAccount = `${(typeof externalAccountPrefixes)[number]}:${string}`;

export interface LedgerLeg {
  account: LedgerAccount | ExternalAccount;
  /** Signed minor units: positive adds to the account, negative takes from it. */
  amount: bigint;
}

export interface LedgerMovement {
  organizationId: string;
  /** Derived from the operation id and the step, e.g. `payment:<txId>:hold`: the double-application guard. */
  entryId: string;
  operation: { kind: string; id: string };
  legs: LedgerLeg[];
  memo: string;
  now?: Date;
}

/** A journal entry as stored and read back. */
export interface JournalEntry {
  organizationId: string;
  entryId: string;
  currency: string;
  operation: { kind: string; id: string };
  legs: LedgerLeg[];
  memo: string;
  createdAt: string;
}

export interface LedgerBalance {
  available: bigint;
  held: bigint;
  settling: bigint;
  /** Null until the first movement created the item. */
  updatedAt: string | null;
}

export type { TransactItem };

// ---- Errors --------------------------------------------------------------------------------

/** The movement itself is wrong (legs not balanced, no organization leg, ...): a bug in the caller. */
export class InvalidMovement extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidMovement';
  }
}

/** An organization account would have gone below zero; nothing was written. */
export class InsufficientFunds extends Error {
  /** `available` as read (strongly consistent) right after the refusal. */
  readonly available: bigint;
  readonly balance: LedgerBalance;
  /** What each debited account had to hold for the movement to pass. */
  readonly needed: Partial<Record<LedgerAccount, bigint>>;
  constructor(organizationId: string, balance: LedgerBalance, needed: Partial<Record<LedgerAccount, bigint>>, options?: ErrorOptions) {
    const wanted = Object.entries(needed).map(([account, amount]) => `${account} ${amount}`).join(', ');
    super(`Organization ${organizationId} does not hold ${wanted} (available ${balance.available}).`, options);
    this.name = 'InsufficientFunds';
    this.available = balance.available;
    this.balance = balance;
    this.needed = needed;
  }
}

/** The journal entry exists already: this movement was applied before; nothing was written now. */
export class MovementAlreadyApplied extends Error {
  constructor(
    readonly organizationId: string,
    readonly entryId: string,
    options?: ErrorOptions,
  ) {
    super(`Ledger entry ${entryId} of organization ${organizationId} was already applied.`, options);
    this.name = 'MovementAlreadyApplied';
  }
}

/**
 * A condition of one of the caller's own items failed (its state moved on); nothing was written.
 * `extraCodes[i]` is the cancellation code of the caller's `extraItems[i]` ('ConditionalCheckFailed'
 * for the one that failed, 'None' for the others); `reasons` covers the whole transaction.
 */
export class TransactionConflict extends Error {
  constructor(
    readonly reasons: CancellationReason[],
    readonly extraCodes: (string | undefined)[],
    options?: ErrorOptions,
  ) {
    super(`A condition of the transaction failed: ${extraCodes.map((code) => code ?? 'None').join(', ')}.`, options);
    this.name = 'TransactionConflict';
  }
}

/**
 * The per-item cancellation codes of a cancelled TransactWriteItems ('None',
 * 'ConditionalCheckFailed', 'TransactionConflict', ...), in the order the items were sent;
 * undefined for any other error.
 */
export function cancellationCodes(error: unknown): (string | undefined)[] | undefined {
  const reasons = cancellationReasons(error);
  return reasons?.map((reason) => reason.Code);
}


// ---- Writing -------------------------------------------------------------------------------

/** DynamoDB keeps 38 significant digits; a larger amount would be refused (or rounded) there. */
const largestAmount = 10n ** 38n - 1n;
const externalAccountPattern = new RegExp(`^(${externalAccountPrefixes.join('|')}):\\S+$`);

export function isOrganizationAccount(account: string): account is LedgerAccount {
  return (organizationAccounts as readonly string[]).includes(account);
}

/** The net change of each organization account, refusing a movement that cannot be right. */
function organizationDeltas(movement: LedgerMovement): Map<LedgerAccount, bigint> {
  const { organizationId, entryId, legs, memo, operation } = movement;
  if (!organizationId) throw new InvalidMovement('a movement needs an organization');
  if (!entryId || entryId.length > 400) throw new InvalidMovement('a movement needs an entry id of 1 to 400 characters');
  if (!operation?.kind || !operation.id) throw new InvalidMovement(`entry ${entryId}: the operation needs a kind and an id`);
  if (typeof memo !== 'string' || memo.length > 500) throw new InvalidMovement(`entry ${entryId}: the memo must be a string of at most 500 characters`);
  if (!Array.isArray(legs) || legs.length < 2 || legs.length > 50) throw new InvalidMovement(`entry ${entryId}: a movement has 2 to 50 legs`);
  const deltas = new Map<LedgerAccount, bigint>();
  let sum = 0n;
  let touchesOrganization = false;
  for (const { account, amount } of legs) {
    if (typeof amount !== 'bigint') throw new InvalidMovement(`entry ${entryId}: amounts are bigint minor units`);
    if (amount > largestAmount || amount < -largestAmount) throw new InvalidMovement(`entry ${entryId}: amount beyond 38 digits`);
    if (isOrganizationAccount(account)) {
      deltas.set(account, (deltas.get(account) ?? 0n) + amount);
      touchesOrganization ||= amount !== 0n;
    } else if (!externalAccountPattern.test(account)) {
      throw new InvalidMovement(`entry ${entryId}: unknown account ${account}`);
    }
    sum += amount;
  }
  if (sum !== 0n) throw new InvalidMovement(`entry ${entryId}: legs sum to ${sum}, not zero`);
  // A zero leg is allowed (a fee of 0 is still worth recording); an entry that moves none of the
  // organization's money does not belong in its journal.
  if (!touchesOrganization) throw new InvalidMovement(`entry ${entryId}: no leg touches the organization's balance`);
  return deltas;
}

/**
 * The two items of a movement, to send in one TransactWriteItems with the caller's own items:
 * the balance Update and the journal Put. `applyMovement` sends them; use this directly only to
 * inspect or to build a transaction that `applyMovement` cannot (then map the indexes yourself).
 */
export function ledgerItems(movement: LedgerMovement): { items: TransactItem[]; balanceItemIndex: number; journalItemIndex: number } {
  const deltas = organizationDeltas(movement);
  const now = (movement.now ?? new Date()).toISOString();
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':entity': balanceEntity,
    ':organizationId': movement.organizationId,
    ':currency': ledgerCurrency,
    ':now': now,
  };
  const additions: string[] = [];
  const conditions: string[] = [];
  // Every account is ADDed, untouched ones with 0: ADD on an absent attribute starts from 0, so
  // the first movement creates the item with all three accounts and later ones never find a gap.
  for (const account of organizationAccounts) {
    const delta = deltas.get(account) ?? 0n;
    names[`#${account}`] = account;
    values[`:${account}`] = delta;
    additions.push(`#${account} :${account}`);
    if (delta < 0n) {
      // new = old + delta >= 0  ⇔  old >= -delta. An absent item fails this, as it should.
      values[`:${account}Needed`] = -delta;
      conditions.push(`#${account} >= :${account}Needed`);
    }
  }
  const balanceUpdate: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: keys.balance(movement.organizationId, ledgerCurrency),
      UpdateExpression: `SET entity = :entity, organizationId = :organizationId, currency = :currency, updatedAt = :now ADD ${additions.join(', ')}`,
      ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
  const journalPut: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.journalEntry(movement.organizationId, movement.entryId),
        entity: journalEntity,
        organizationId: movement.organizationId,
        entryId: movement.entryId,
        currency: ledgerCurrency,
        operation: { kind: movement.operation.kind, id: movement.operation.id },
        // Strings, not numbers: a signed bigint stays exact in any reader, JSON and streams included.
        legs: movement.legs.map(({ account, amount }) => ({ account, amount: amount.toString() })),
        memo: movement.memo,
        createdAt: now,
        // No index entry: the invariant reads the organization's JOURNAL# keys, statements their fee
        // lines (decision 096); nothing reads the journal by period (decision 128).
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  return { items: [balanceUpdate, journalPut], balanceItemIndex: 0, journalItemIndex: 1 };
}

/** Many movements on one balance item contend; DynamoDB then cancels some with TransactionConflict. */
const maxAttempts = 12;

/**
 * Applies the movement, together with the caller's `extraItems` (its conditional state update,
 * its outbox Put), all or nothing. Throws:
 * - `MovementAlreadyApplied` when the journal entry exists (checked first: a retry of a movement
 *   that went through must not read as a refusal);
 * - `TransactionConflict` when one of the caller's own conditions failed (its premise is stale,
 *   whatever the balance);
 * - `InsufficientFunds` when a debited account holds less than the movement takes;
 * - the SDK's error otherwise. A cancellation caused only by contention (TransactionConflict,
 *   throttling) wrote nothing and is retried here with backoff before it is given up.
 */
export async function applyMovement(movement: LedgerMovement, extraItems: TransactItem[] = []): Promise<JournalEntry> {
  const { items, balanceItemIndex, journalItemIndex } = ledgerItems(movement);
  const transactItems = [...items, ...extraItems];
  try {
    await transactWrite(transactItems, maxAttempts);
    return journalEntryOf(items[journalItemIndex]!.Put!.Item!);
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    const codes = reasons.map((reason) => reason.Code);
    const failedCondition = (index: number) => codes[index] === 'ConditionalCheckFailed';
    if (failedCondition(journalItemIndex)) {
      throw new MovementAlreadyApplied(movement.organizationId, movement.entryId, { cause: error });
    }
    const extraCodes = codes.slice(items.length);
    if (extraCodes.some((code) => code === 'ConditionalCheckFailed')) {
      throw new TransactionConflict(reasons, extraCodes, { cause: error });
    }
    if (failedCondition(balanceItemIndex)) {
      const balance = await readBalance(movement.organizationId);
      throw new InsufficientFunds(movement.organizationId, balance, neededOf(movement), { cause: error });
    }
    throw error;
  }
}

function neededOf(movement: LedgerMovement): Partial<Record<LedgerAccount, bigint>> {
  const needed: Partial<Record<LedgerAccount, bigint>> = {};
  for (const [account, delta] of organizationDeltas(movement)) if (delta < 0n) needed[account] = -delta;
  return needed;
}

export type DepositRail = 'wire' | 'pix' | 'chain';

export function depositEntryId(depositId: string): string {
  return `deposit:${depositId}:credit`;
}

export interface DepositCredit {
  organizationId: string;
  depositId: string;
  amount: bigint;
  rail: DepositRail;
  memo: string;
  now?: Date;
}

/**
 * The movement of a deposit arriving: `external:<rail>` gives, `available` receives. Built here
 * for callers that write it with their own status change (an on-ramp's DELIVERED, through
 * a move's `ledger`, functions/operations/kit/storedOperation.ts); creditDeposit applies it on its own.
 */
export function depositMovement(input: DepositCredit): LedgerMovement {
  if (input.amount <= 0n) throw new InvalidMovement(`deposit ${input.depositId}: the amount must be positive`);
  return {
    organizationId: input.organizationId,
    entryId: depositEntryId(input.depositId),
    operation: { kind: 'deposit', id: input.depositId },
    legs: [
      { account: `external:${input.rail}`, amount: -input.amount },
      { account: 'available', amount: input.amount },
    ],
    memo: input.memo,
    ...(input.now ? { now: input.now } : {}),
  };
}

/**
 * A deposit arrives. Deposits (and the demo organization's opening balance) use exactly this
 * movement; applying it twice is refused with MovementAlreadyApplied.
 */
export async function creditDeposit(input: DepositCredit, extraItems: TransactItem[] = []): Promise<JournalEntry> {
  return applyMovement(depositMovement(input), extraItems);
}

// ---- Reading -------------------------------------------------------------------------------

/** An exact number from the exact client: NumberValue (or bigint); absent is 0. */
function exact(value: unknown, what: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (value instanceof NumberValue) return value.toBigInt();
  if (typeof value === 'bigint') return value;
  // A JS number here would mean a read that went through a float: refuse rather than guess.
  throw new Error(`${what} was not read exactly (${typeof value})`);
}

/** Strongly consistent; zeros (and updatedAt null) before the organization's first movement. */
export async function readBalance(organizationId: string, currency = ledgerCurrency): Promise<LedgerBalance> {
  const { Item } = await dynamoExact().send(
    new GetCommand({ TableName: tableName(), Key: keys.balance(organizationId, currency), ConsistentRead: true }),
  );
  return {
    available: exact(Item?.available, 'available'),
    held: exact(Item?.held, 'held'),
    settling: exact(Item?.settling, 'settling'),
    updatedAt: (Item?.updatedAt as string | undefined) ?? null,
  };
}

function journalEntryOf(item: Record<string, unknown>): JournalEntry {
  const legs = item.legs as { account: LedgerLeg['account']; amount: string }[];
  return {
    organizationId: item.organizationId as string,
    entryId: item.entryId as string,
    currency: (item.currency as string | undefined) ?? ledgerCurrency,
    operation: item.operation as JournalEntry['operation'],
    legs: legs.map(({ account, amount }) => ({ account, amount: BigInt(amount) })),
    memo: item.memo as string,
    createdAt: item.createdAt as string,
  };
}

/** Every journal entry of the organization, in entry id order (strongly consistent, all pages). */
export async function listJournalEntries(organizationId: string, currency = ledgerCurrency): Promise<JournalEntry[]> {
  const { pk, sk: prefix } = keys.journalEntry(organizationId, '');
  const items = await queryPrefix(pk, prefix, { ConsistentRead: true }, dynamoExact());
  return items.map(journalEntryOf).filter((entry) => entry.currency === currency);
}

/** The sum of the entries' organization legs per account: for a whole journal, what the balance item must equal. */
export function organizationTotals(entries: JournalEntry[]): Record<LedgerAccount, bigint> {
  const totals: Record<LedgerAccount, bigint> = { available: 0n, held: 0n, settling: 0n };
  for (const entry of entries) {
    for (const { account, amount } of entry.legs) {
      if (isOrganizationAccount(account)) totals[account] += amount;
    }
  }
  return totals;
}

/** The sum of every journal entry's organization legs per account: what the balance item must equal. */
export async function journalTotals(organizationId: string, currency = ledgerCurrency): Promise<Record<LedgerAccount, bigint>> {
  return organizationTotals(await listJournalEntries(organizationId, currency));
}
