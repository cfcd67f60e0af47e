import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { queueConsumer } from '#platform/queueConsumer.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { outboxEventSchema } from '#store/outbox.ts';

/**
 * Event rule target: keeps every service event as an audit record of its organization, for
 * support and reconciliation. Delivery is at least once, so the record is keyed by the event
 * id and written only if absent: a repeated delivery is a no-op. A message that cannot be
 * parsed or written is reported back, so the queue redelivers it and finally dead-letters it.
 */
export const auditRecordEntity = 'auditRecord';

const busEventSchema = z.object({
  id: z.string().min(1),
  source: z.string().min(1),
  'detail-type': z.string().min(1),
  time: z.string().min(1),
  detail: outboxEventSchema,
});

export const handler = queueConsumer('audit record not written', busEventSchema, record);

async function record(busEvent: z.infer<typeof busEventSchema>): Promise<void> {
  const { detail } = busEvent;
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.auditRecord(detail.organizationId, detail.id),
          entity: auditRecordEntity,
          eventId: detail.id,
          type: detail.type,
          organizationId: detail.organizationId,
          createdAt: detail.createdAt,
          source: busEvent.source,
          busEventId: busEvent.id,
          receivedAt: new Date().toISOString(),
          data: detail.data,
          // An organization's trail, oldest to newest by event time.
          gsi1pk: `ORG#${detail.organizationId}#audit`,
          gsi1sk: `${detail.createdAt}#${detail.id}`,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return;
    throw error;
  }
}
