/**
 * Page through the transactions, newest first:
 *   BASE_URL=http://127.0.0.1:3000 API_KEY=sk_sim_… npx tsx examples/list-transactions.ts
 */
import { run } from './connect.ts';

run(async (client) => {
  let count = 0;
  // The walk asks for pages of `limit` and follows nextCursor until it is null.
  for await (const tx of client.paginate('/transactions', { query: { limit: 10 } })) {
    count++;
    console.log(`${tx.createdAt}  ${tx.transactionId}  ${tx.sendAmount.amount} (scale ${tx.sendAmount.scale}) ${tx.sendAmount.currency} → ${tx.corridor.to}  ${tx.recipientReference}`);
  }
  console.log(`${count} transactions`);
});
