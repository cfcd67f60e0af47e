import { beforeAll, describe, expect, it } from 'vitest';
import { cursorLength, decodeCursor, encodeCursor } from '#store/cursors.ts';
import { forgetGeneratedKeys } from '#store/settings.ts';
import { listSortKey } from '#store/keys.ts';
import { ApiError } from '#platform/errors.ts';
import { CursorMaxLength, IdempotencyKey, PathId } from '#schemas/common.ts';
import { BatchItemInput } from '#schemas/batches.ts';
import { useFreshTable } from '../support/table.ts';

const scope = { list: 'transactions', organizationId: 'org_A' };
const lastKey = listSortKey('2026-11-23T00:00:00.000Z', 'invoice-2026-0042');

/** The longest string of `unit` a schema accepts (it accepts no longer one up to `ceiling`). */
function longestAccepted(schema: { safeParse(value: unknown): { success: boolean } }, unit: string, ceiling = 2_000): number {
  let longest = 0;
  for (let length = 1; length <= ceiling; length += 1) if (schema.safeParse(unit.repeat(length)).success) longest = length;
  return longest;
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe('invalid_cursor');
  expect((error as ApiError).status).toBe(400);
}

describe('pagination cursors', () => {
  beforeAll(async () => {
    await useFreshTable('cursors');
  });

  it('name the row they were made from', async () => {
    const cursor = await encodeCursor(scope, lastKey);
    expect(cursor.length).toBeLessThanOrEqual(512);
    expect(await decodeCursor(scope, cursor)).toEqual(lastKey);
  });

  it('survive a new process: the key is kept in the table', async () => {
    const cursor = await encodeCursor(scope, lastKey);
    forgetGeneratedKeys();
    expect(await decodeCursor(scope, cursor)).toEqual(lastKey);
  });

  it('refuse any altered byte', async () => {
    const cursor = await encodeCursor(scope, lastKey);
    for (const index of [0, 5, Math.floor(cursor.length / 2), cursor.length - 1]) {
      const flipped = cursor[index] === 'A' ? 'B' : 'A';
      await refusal(decodeCursor(scope, `${cursor.slice(0, index)}${flipped}${cursor.slice(index + 1)}`));
    }
  });

  it('refuse a cursor of another organization or another list', async () => {
    const cursor = await encodeCursor(scope, lastKey);
    await refusal(decodeCursor({ ...scope, organizationId: 'org_B' }, cursor));
    await refusal(decodeCursor({ ...scope, list: 'batches' }, cursor));
  });

  it('fit the contract\'s 512 characters for the longest id any list can hold, whatever its characters', async () => {
    // The ids a list row carries: idempotency keys (payments, on-ramps, withdrawals, off-ramps,
    // batches) and batch items' `<batchId>:<itemRef>`. Their schemas admit ASCII only, so a
    // character is a byte: no multi-byte key can make a longer sort key.
    const keyLength = longestAccepted(IdempotencyKey, 'a');
    expect(keyLength).toBe(200);
    for (const unit of ['A', 'z', '0', '_', '.', ':', '-']) expect(longestAccepted(IdempotencyKey, unit, 300)).toBe(keyLength);
    for (const wide of ['é', 'ß', 'Ａ', '\u00a0', '🙂', 'я']) expect(IdempotencyKey.safeParse(`key-${wide}-1234`).success).toBe(false);
    const itemRef = BatchItemInput.shape.itemRef;
    const itemRefLength = longestAccepted(itemRef, 'a', 300);
    expect(itemRefLength).toBe(64);
    for (const wide of ['é', '🙂']) expect(itemRef.safeParse(`ref${wide}`).success).toBe(false);
    const longestId = Math.max(keyLength, keyLength + 1 + itemRefLength);
    expect(longestId).toBeLessThanOrEqual(longestAccepted(PathId, 'a', 600));
    // The longest ISO timestamp a Date can write (a six-digit year); today's are 24 characters.
    const longestCreatedAt = new Date(8.64e15).toISOString();
    expect(longestCreatedAt).toHaveLength(27);

    const worst = listSortKey(longestCreatedAt, 'x'.repeat(longestId));
    expect(cursorLength(Buffer.byteLength(worst))).toBeLessThanOrEqual(CursorMaxLength);
    const cursor = await encodeCursor(scope, worst);
    expect(cursor.length).toBe(cursorLength(Buffer.byteLength(worst)));
    expect(await decodeCursor(scope, cursor)).toBe(worst);
    // The length depends on the byte count only, never on which characters: any id of that length gives the same.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-';
    for (let sample = 0; sample < 50; sample += 1) {
      const id = Array.from({ length: longestId }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
      expect((await encodeCursor(scope, listSortKey(longestCreatedAt, id))).length).toBe(cursor.length);
    }
  });

  it('are never issued longer than the contract allows', async () => {
    await expect(encodeCursor(scope, listSortKey('2026-11-23T00:00:00.000Z', 'x'.repeat(400)))).rejects.toThrow(/longer than 512/);
  });

  it.each(['', 'x', 'a.b', 'a.b.c', '.', '🙂', 'eyJ2IjoxfQ.' + 'A'.repeat(43), 'A'.repeat(2000)])('refuse forged cursor %#', async (forged) => {
    await refusal(decodeCursor(scope, forged));
  });
});
