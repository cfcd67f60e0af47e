import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, forgetCursorSecret } from '#store/cursors.ts';
import { ApiError } from '#platform/errors.ts';
import { useFreshTable } from '../support/table.ts';

const scope = { list: 'transactions', organizationId: 'org_A' };
const lastKey = { pk: 'ORG#org_A', sk: 'TX#1', gsi1pk: 'ORG#org_A#transaction', gsi1sk: '2026-11-23T00:00:00.000Z#1' };

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
    forgetCursorSecret();
  });

  it('name the row they were made from', async () => {
    const cursor = await encodeCursor(scope, lastKey);
    expect(cursor.length).toBeLessThanOrEqual(512);
    expect(await decodeCursor(scope, cursor)).toEqual(lastKey);
  });

  it('survive a new process: the key is kept in the table', async () => {
    const cursor = await encodeCursor(scope, lastKey);
    forgetCursorSecret();
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

  it.each(['', 'x', 'a.b', 'a.b.c', '.', '🙂', 'eyJ2IjoxfQ.' + 'A'.repeat(43), 'A'.repeat(2000)])('refuse forged cursor %#', async (forged) => {
    await refusal(decodeCursor(scope, forged));
  });
});
