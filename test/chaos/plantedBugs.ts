import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Bugs planted on purpose, to show the chaos harness catches what it claims to (issue 29: "a planted
 * bug is caught and shrunk to a short sequence"). Each one rewrites the ledger's own DynamoDB
 * transaction on its way to the table, in this process (the service runs in it), so the code
 * under test stays unchanged and the bug is exactly the one named:
 *
 * - `balanceConditionDropped`: the balance update loses its `>= needed` condition, so a debit the
 *   balance does not cover goes through;
 * - `movedTwiceOnRedelivery`: a step that moves money is delivered twice, and the second time the
 *   journal's guard (one entry per step, `attribute_not_exists`) is gone: the movement lands again
 *   under a key of its own.
 */
export type PlantedBug = 'balanceConditionDropped' | 'movedTwiceOnRedelivery';

type Send = (this: unknown, command: unknown, ...rest: unknown[]) => Promise<unknown>;
type TransactItem = NonNullable<TransactWriteCommand['input']['TransactItems']>[number];

// The store writes through the document client: keys are plain strings here.
const isBalanceUpdate = (item: TransactItem) => String(item.Update?.Key?.sk ?? '').startsWith('BALANCE#');
const isJournalPut = (item: TransactItem) => String(item.Put?.Item?.sk ?? '').startsWith('JOURNAL#');

/** Plants the bug in every DynamoDB client of this process; answers the function that removes it. */
export function plantBug(bug: PlantedBug): () => void {
  const prototype = Object.getPrototypeOf(DynamoDBClient.prototype) as { send: Send };
  const send = prototype.send;
  prototype.send = async function planted(this: unknown, command: unknown, ...rest: unknown[]) {
    if (!(command instanceof TransactWriteCommand)) return send.call(this, command, ...rest);
    const items = command.input.TransactItems ?? [];
    if (bug === 'balanceConditionDropped') {
      for (const item of items.filter(isBalanceUpdate)) {
        const update = item.Update!;
        delete update.ConditionExpression;
        // DynamoDB refuses a value no expression uses: the condition's `:…Needed` go with it.
        for (const name of Object.keys(update.ExpressionAttributeValues ?? {})) if (name.endsWith('Needed')) delete update.ExpressionAttributeValues![name];
      }
      return send.call(this, command, ...rest);
    }
    const answer = await send.call(this, command, ...rest);
    const balance = items.find(isBalanceUpdate);
    const journal = items.find(isJournalPut);
    if (balance && journal) {
      const again: TransactItem[] = [
        balance,
        { Put: { ...journal.Put!, Item: { ...journal.Put!.Item, sk: `${String(journal.Put!.Item!.sk)}#again` }, ConditionExpression: undefined } },
      ];
      await send.call(this, new TransactWriteCommand({ TransactItems: again }), ...rest);
    }
    return answer;
  };
  return () => {
    prototype.send = send;
  };
}
