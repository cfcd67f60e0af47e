import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

/**
 * An event rule target for the local bus's own tests: keeps every batch it is handed, and refuses a
 * message whose event detail says `refuse: n` on its first n receipts.
 */
export const batches: { messageId: string; receiveCount: number; detail: { refuse?: number; n?: number } }[][] = [];

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batch = event.Records.map((record) => ({
    messageId: record.messageId,
    receiveCount: Number(record.attributes.ApproximateReceiveCount),
    detail: (JSON.parse(record.body) as { detail: { refuse?: number; n?: number } }).detail,
  }));
  batches.push(batch);
  return { batchItemFailures: batch.filter((message) => message.receiveCount <= (message.detail.refuse ?? 0)).map((message) => ({ itemIdentifier: message.messageId })) };
}
