import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryAttempt, EventDetail, EventSummary, EventType, WebhookEndpoint } from '#schemas/webhooks.ts';
import { conditionally, dynamo, putIfAbsent, tableName } from './client.ts';
import { readPage } from './cursors.ts';
import { keys, listSortKey } from './keys.ts';
import type { Sealed } from './secretBox.ts';

/**
 * The webhook endpoint and the events an organization receives (docs/decisions/091, 093).
 *
 * The endpoint is one item beside the organization's, never in it: the organization item is read
 * by every request, the sealed secrets only by the endpoint handler and the deliveries (the webhook
 * starter's first attempt, the task's later ones). A registration has an id that a PUT keeps and a
 * DELETE ends: a delivery carries the id it started under and stops at its next attempt when the
 * endpoint it finds is another one, or none.
 *
 * Each event of the seven types is kept 30 days per organization with the exact body every attempt
 * signs and its attempts (10 scheduled at most, plus at most 40 redeliveries: the list stays small).
 */
export const webhookEndpointEntity = 'webhookEndpoint';
export const webhookEventEntity = 'webhookEvent';

export const eventRetentionSeconds = 30 * 24 * 3600;
export const maxRedeliveries = 40;

export interface EndpointRecord {
  organizationId: string;
  registrationId: string;
  url: string;
  events: EventType[];
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  secret: Sealed;
  secretHint: string;
  previousSecret: Sealed | null;
  previousSecretExpiresAt: string | null;
  /** When the first of the endpoint's current run of failed attempts happened; absent after a success. */
  failingSince?: string;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryStatus = EventSummary['deliveryStatus'];

export interface EventRecord {
  organizationId: string;
  id: string;
  type: EventType;
  createdAt: string;
  /** The payload as signed: the same bytes on every attempt. */
  body: string;
  deliveryStatus: DeliveryStatus;
  /** The registration the scheduled delivery started under; null when none received this type. */
  registrationId: string | null;
  attempts: DeliveryAttempt[];
  redeliveries: number;
  /**
   * When the scheduled delivery's first attempt was kept: the webhook starter keeps one only while
   * this is absent, so of two starters of the same event only one decides what follows it.
   */
  firstAttemptAt?: string;
  ttl: number;
}

export function endpointView(record: EndpointRecord, now = new Date()): WebhookEndpoint {
  const rotating = record.previousSecretExpiresAt !== null && Date.parse(record.previousSecretExpiresAt) > now.getTime();
  return {
    url: record.url,
    events: record.events,
    status: record.status,
    disabledReason: record.disabledReason,
    previousSecretExpiresAt: rotating ? record.previousSecretExpiresAt : null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    secretHint: record.secretHint,
  };
}

export async function getEndpoint(organizationId: string): Promise<EndpointRecord | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEndpoint(organizationId), ConsistentRead: true }));
  return Item as EndpointRecord | undefined;
}

/** Writes the endpoint if it is still as read (`expectedUpdatedAt`; undefined: none was registered). False when it had changed. */
export async function saveEndpoint(record: EndpointRecord, expectedUpdatedAt: string | undefined): Promise<boolean> {
  return conditionally(
    dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.webhookEndpoint(record.organizationId), entity: webhookEndpointEntity, ...record },
        ConditionExpression: expectedUpdatedAt === undefined ? 'attribute_not_exists(pk)' : 'updatedAt = :expected',
        ...(expectedUpdatedAt === undefined ? {} : { ExpressionAttributeValues: { ':expected': expectedUpdatedAt } }),
      }),
    ),
  );
}

export async function deleteEndpoint(organizationId: string): Promise<EndpointRecord | undefined> {
  const { Attributes } = await dynamo().send(
    new DeleteCommand({ TableName: tableName(), Key: keys.webhookEndpoint(organizationId), ReturnValues: 'ALL_OLD' }),
  );
  return Attributes as EndpointRecord | undefined;
}

/** Changes the endpoint only while it is still the registration a delivery started under. */
async function updateRegistration(
  organizationId: string,
  registrationId: string,
  update: string,
  values: Record<string, unknown>,
  names?: Record<string, string>,
): Promise<boolean> {
  return conditionally(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookEndpoint(organizationId),
        UpdateExpression: update,
        ConditionExpression: 'registrationId = :registration',
        ExpressionAttributeValues: { ':registration': registrationId, ...values },
        ...(names ? { ExpressionAttributeNames: names } : {}),
      }),
    ),
  );
}

export function disableEndpoint(organizationId: string, registrationId: string, reason: string, now: Date): Promise<boolean> {
  return updateRegistration(organizationId, registrationId, 'SET #status = :disabled, disabledReason = :reason, updatedAt = :now', {
    ':disabled': 'disabled',
    ':reason': reason,
    ':now': now.toISOString(),
  }, { '#status': 'status' });
}

/** The first failure of a run starts its clock; later ones keep it. */
export function markFailing(organizationId: string, registrationId: string, now: Date): Promise<boolean> {
  return updateRegistration(organizationId, registrationId, 'SET failingSince = if_not_exists(failingSince, :now)', { ':now': now.toISOString() });
}

export function markHealthy(organizationId: string, registrationId: string): Promise<boolean> {
  return updateRegistration(organizationId, registrationId, 'REMOVE failingSince', {});
}

// ---- Events -----------------------------------------------------------------------------

const eventList = (organizationId: string) => `ORG#${organizationId}#webhookEvents`;
const eventListOfType = (organizationId: string, type: string) => `ORG#${organizationId}#webhookEvents#${type}`;

/**
 * The body is stored compressed (Brotli, binary) since decision 138: the signed JSON is half of
 * an event record, and compressed it keeps the record under the 1 KB a write unit covers (2 units a
 * write before). Decompressing gives back the same bytes, so every attempt still signs what was kept.
 * Records written before hold the body as a string and read as they are.
 */
// Quality 6: within a few bytes of the best (11) on these bodies, at a twentieth of its time (about 0.1 ms).
const storedBody = (body: string) => {
  const bytes = Buffer.from(body, 'utf8');
  return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
};
const bodyOf = (stored: unknown) => (typeof stored === 'string' ? stored : brotliDecompressSync(stored as Uint8Array).toString('utf8'));

/** Keeps the event (once: a repeated bus delivery finds it and answers it as stored). */
export async function recordEvent(record: Omit<EventRecord, 'ttl'>): Promise<EventRecord> {
  const item: EventRecord = { ...record, ttl: Math.floor(Date.parse(record.createdAt) / 1000) + eventRetentionSeconds };
  const sortKey = listSortKey(record.createdAt, record.id);
  const written = await putIfAbsent({
    ...keys.webhookEvent(record.organizationId, record.id),
    entity: webhookEventEntity,
    ...item,
    body: storedBody(item.body),
    gsi1pk: eventList(record.organizationId),
    gsi1sk: sortKey,
    gsi2pk: eventListOfType(record.organizationId, record.type),
    gsi2sk: sortKey,
  });
  if (written) return item;
  const stored = await getEvent(record.organizationId, record.id);
  if (!stored) throw new Error(`webhook event ${record.id} was refused as a repeat but is not stored`);
  return stored;
}

export async function getEvent(organizationId: string, eventId: string): Promise<EventRecord | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEvent(organizationId, eventId), ConsistentRead: true }));
  // DynamoDB's TTL deletes within days of expiry, not at it: an expired event is already gone for readers.
  if (!Item || (Item.ttl as number) * 1000 <= Date.now()) return undefined;
  return { ...(Item as EventRecord), body: bodyOf(Item.body) };
}

export async function appendAttempt(organizationId: string, eventId: string, attempt: DeliveryAttempt, deliveryStatus: DeliveryStatus): Promise<void> {
  const kept = await updateKeepingDelivered(organizationId, eventId, deliveryStatus, ['attempts = list_append(attempts, :attempt)'], 'attribute_exists(pk)', { ':attempt': [attempt] });
  if (!kept) throw new Error(`webhook event ${eventId} is gone: its attempt is not kept`);
}

/**
 * Keeps the scheduled delivery's first attempt, unless one was kept already (a duplicate of the
 * event, handled side by side): false then, and nothing changed.
 */
export function keepFirstAttempt(organizationId: string, eventId: string, attempt: DeliveryAttempt, deliveryStatus: DeliveryStatus): Promise<boolean> {
  return updateKeepingDelivered(
    organizationId,
    eventId,
    deliveryStatus,
    ['attempts = list_append(attempts, :attempt)', 'firstAttemptAt = :at'],
    'attribute_exists(pk) AND attribute_not_exists(firstAttemptAt)',
    { ':attempt': [attempt], ':at': attempt.attemptedAt },
  );
}

/** Sets the event's delivery status; `delivered` is never taken back, and a gone event is left gone. */
export async function setDeliveryStatus(organizationId: string, eventId: string, deliveryStatus: DeliveryStatus): Promise<void> {
  await updateKeepingDelivered(organizationId, eventId, deliveryStatus, [], 'attribute_exists(pk)', {});
}

/**
 * Sets `set` and the delivery status on the event when `condition` holds, in one write that never
 * takes back `delivered`: an attempt decides its status on the event it read, and a redelivery (or
 * a scheduled attempt) beside it may have delivered the event since; the chaos workload saw a
 * scheduled delivery's "stopped" land after a redelivery's "delivered". On an event delivered
 * meanwhile, the rest of `set` is made without the status. False when `condition` refused.
 */
async function updateKeepingDelivered(organizationId: string, eventId: string, deliveryStatus: DeliveryStatus, set: string[], condition: string, values: Record<string, unknown>): Promise<boolean> {
  const update = (expressions: string[], conditionExpression: string, expressionValues: Record<string, unknown>) =>
    conditionally(
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.webhookEvent(organizationId, eventId),
          UpdateExpression: `SET ${expressions.join(', ')}`,
          ConditionExpression: conditionExpression,
          ExpressionAttributeValues: expressionValues,
        }),
      ),
    );
  const withStatus = [...set, 'deliveryStatus = :status'];
  if (deliveryStatus === 'delivered') return update(withStatus, condition, { ...values, ':status': deliveryStatus });
  if (await update(withStatus, `${condition} AND deliveryStatus <> :delivered`, { ...values, ':status': deliveryStatus, ':delivered': 'delivered' })) return true;
  // Refused: delivered meanwhile, or `condition` does not hold; the rest alone, on its own condition, tells which.
  return set.length === 0 ? false : update(set, condition, values);
}

/** The number of the next redelivery of the event; undefined once it has had `maxRedeliveries`. */
export async function nextRedelivery(organizationId: string, eventId: string): Promise<number | undefined> {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookEvent(organizationId, eventId),
        UpdateExpression: 'SET redeliveries = redeliveries + :one',
        ConditionExpression: 'attribute_exists(pk) AND redeliveries < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': maxRedeliveries },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Attributes?.redeliveries as number;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

export function eventSummary(record: Pick<EventRecord, 'id' | 'type' | 'createdAt' | 'deliveryStatus'>): EventSummary {
  return { id: record.id, type: record.type, createdAt: record.createdAt, deliveryStatus: record.deliveryStatus };
}

export function eventDetail(record: EventRecord): EventDetail {
  return {
    ...eventSummary(record),
    payload: JSON.parse(record.body) as EventDetail['payload'],
    attempts: record.attempts,
    expiresAt: new Date(record.ttl * 1000).toISOString(),
  };
}

export async function listEvents(
  organizationId: string,
  page: { limit?: number; cursor?: string; type?: EventType },
): Promise<{ rows: EventSummary[]; nextCursor: string | null }> {
  const { type, ...paging } = page;
  const { items, nextCursor } = await readPage(
    {
      // One cursor scope per filter: a cursor of the whole list does not page the filtered one.
      scope: { list: type ? `webhookEvents:${type}` : 'webhookEvents', organizationId },
      index: type ? 'gsi2v2' : 'gsi1v2',
      partition: type ? eventListOfType(organizationId, type) : eventList(organizationId),
    },
    paging,
    { attributes: ['id', 'type', 'createdAt', 'deliveryStatus'] },
  );
  return { rows: items.map((item) => eventSummary(item as unknown as EventRecord)), nextCursor };
}
