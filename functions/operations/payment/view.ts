import { getTransaction, listTransactions, statusView } from '#store/transactions.ts';

/**
 * A payment as the contract shows it (GET /transactions/{transactionId}, GET /transactions). The
 * payment's item and its view live in functions/store/transactions.ts with the ledger legs they are
 * written with; reads reach them through here, like every operation's.
 */
export async function paymentOf(organizationId: string, transactionId: string) {
  const transaction = await getTransaction(organizationId, transactionId);
  return transaction && statusView(transaction);
}

/** GET /transactions: a page, newest first. */
export function paymentPage(organizationId: string, page: { limit?: number; cursor?: string }) {
  return listTransactions(organizationId, page);
}
