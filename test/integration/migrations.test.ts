import { beforeAll, describe, expect, it } from 'vitest';
import { runMigrationOnce } from '#store/migrations.ts';
import { useFreshTable } from '../support/table.ts';

/** `npm start` with DATA_DIR runs its data migrations once per table, not at every start. */
describe('runMigrationOnce', () => {
  beforeAll(async () => {
    await useFreshTable('migrations');
  });

  it('runs a migration to its end once, and again only if it did not finish', async () => {
    let runs = 0;
    const migrate = async () => ({ moved: (runs += 1) });
    expect(await runMigrationOnce('example', migrate)).toEqual({ ran: true, result: { moved: 1 } });
    expect(await runMigrationOnce('example', migrate)).toEqual({ ran: false });
    expect(runs).toBe(1);

    const cutShort = async (): Promise<{ moved: number }> => {
      runs += 1;
      throw new Error('table unreachable');
    };
    await expect(runMigrationOnce('other', cutShort)).rejects.toThrow('table unreachable');
    expect(await runMigrationOnce('other', migrate)).toEqual({ ran: true, result: { moved: 3 } });
  });
});
