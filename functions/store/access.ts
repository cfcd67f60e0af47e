import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { sameHash, type ParsedApiKey } from '#core/apiKeys.ts';
import { bucketSpan, decide, defaultLimits, headersAfter, type BucketLimit, type BucketName, type RateHeaders } from '#core/rateLimit.ts';
import type { Role } from '#core/permissions.ts';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { OrganizationItem } from './organizations.ts';

/**
 * Authentication and the rate bucket in one DynamoDB round trip: a conditional UpdateItem on
 * the organization item that checks the key's hash and advances the bucket's TAT, returning the
 * organization (name, KYB status, key roles). A wrong key changes nothing, so nobody can drain
 * another organization's bucket by guessing. See docs/decisions/004-rate-limits.md.
 */
export interface Caller {
  organizationId: string;
  organizationName: string;
  kybStatus: OrganizationItem['kybStatus'];
  keyId: string;
  role: Role;
  /** Set for member keys; absent for the organization key. */
  memberId?: string;
}

export type AccessResult =
  | { outcome: 'allowed'; caller: Caller; organization: OrganizationItem; rate: RateHeaders }
  | { outcome: 'rate_limited'; retryAfterSeconds: number; rate: RateHeaders }
  | { outcome: 'unauthorized' };

const tatAttribute: Record<BucketName, string> = { initiate: 'tatInitiate', write: 'tatWrite', read: 'tatRead' };

/**
 * Last TAT and limit this process saw per organization and bucket: they pick the update form
 * first. A TAT only moves forward, so a remembered one can only under-state the load: a 429
 * decided from it without a round trip is never wrong for the limit it was decided with.
 */
const lastSeenTat = new Map<string, number>();
const lastSeenLimit = new Map<string, BucketLimit>();

function remember(cacheKey: string, tat: number): void {
  lastSeenTat.set(cacheKey, Math.max(tat, lastSeenTat.get(cacheKey) ?? tat));
}

/**
 * Attempts before giving up with a 429. Each failed attempt returns the item, so the next one
 * uses the right form; only a bucket crossing between idle and busy meanwhile needs a third.
 */
const maxAttempts = 4;
/** Transaction conflicts waited out (docs/decisions/051): they say nothing about the key or the bucket. */
const maxConflicts = 5;

function isTransactionConflict(error: unknown): boolean {
  return error instanceof Error && error.name === 'TransactionConflictException';
}

export async function authorizeAndCharge(key: ParsedApiKey, bucket: BucketName, now = Date.now(), cost = 1): Promise<AccessResult> {
  const attribute = tatAttribute[bucket];
  const cacheKey = `${key.organizationId}#${bucket}`;
  let known: number | undefined = lastSeenTat.get(cacheKey);
  let limit: BucketLimit = lastSeenLimit.get(cacheKey) ?? defaultLimits[bucket];

  let conflicts = 0;
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    const local = decide(known, now, limit, cost);
    if (!local.allowed) return { outcome: 'rate_limited', retryAfterSeconds: local.retryAfterSeconds, rate: local.headers };
    const { increment, capacity } = bucketSpan(limit, cost);
    // Idle bucket (TAT not ahead of now): the new TAT is now + increment, whatever the old one.
    // Busy bucket: add the increment to the stored TAT, if that keeps it within capacity. Neither
    // form depends on the exact old value, so concurrent requests do not invalidate each other.
    const busy = known !== undefined && known > now;
    try {
      const result = await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.organization(key.organizationId),
          UpdateExpression: busy ? 'SET #tat = #tat + :increment' : 'SET #tat = :newTat',
          ConditionExpression: busy
            ? '#keys.#kid.#hash = :hash AND #tat BETWEEN :now AND :latest'
            : '#keys.#kid.#hash = :hash AND (attribute_not_exists(#tat) OR #tat <= :now)',
          ExpressionAttributeNames: { '#tat': attribute, '#keys': 'keys', '#kid': key.keyId, '#hash': 'hash' },
          ExpressionAttributeValues: {
            ':hash': key.hash,
            ':now': now,
            ...(busy ? { ':increment': increment, ':latest': now + capacity - increment } : { ':newTat': now + increment }),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const organization = result.Attributes as OrganizationItem;
      const caller = callerFrom(organization, key);
      if (!caller) return { outcome: 'unauthorized' };
      const written = organization[attribute] as number;
      const actualLimit = organization.rateLimits?.[bucket] ?? defaultLimits[bucket];
      lastSeenLimit.set(cacheKey, actualLimit);
      remember(cacheKey, written);
      if (sameLimit(actualLimit, limit)) {
        return { outcome: 'allowed', caller, organization, rate: headersAfter(written, now, limit) };
      }
      // This process had not seen the organization's own limit yet: redo the decision with it.
      const previous = busy ? written - increment : undefined;
      const corrected = decide(previous, now, actualLimit, cost);
      await correctTat(key.organizationId, attribute, written, corrected.allowed ? corrected.newTat : previous);
      lastSeenTat.set(cacheKey, corrected.allowed ? corrected.newTat : (previous ?? now));
      if (!corrected.allowed) {
        return { outcome: 'rate_limited', retryAfterSeconds: corrected.retryAfterSeconds, rate: corrected.headers };
      }
      return { outcome: 'allowed', caller, organization: { ...organization, [attribute]: corrected.newTat }, rate: corrected.headers };
    } catch (error) {
      if (isTransactionConflict(error) && conflicts < maxConflicts) {
        // A key change (an invitation accepted, a member removed or rotated) holds the organization
        // item in a transaction for a moment; a single write meanwhile is refused and changed nothing.
        conflicts += 1;
        attempt -= 1;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * conflicts));
        continue;
      }
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      if (!error.Item) return { outcome: 'unauthorized' };
      const current = unmarshall(error.Item) as OrganizationItem;
      if (!callerFrom(current, key)) return { outcome: 'unauthorized' };
      // The key is good: the bucket was in the other form, or full. Decide again on what it holds.
      limit = current.rateLimits?.[bucket] ?? defaultLimits[bucket];
      lastSeenLimit.set(cacheKey, limit);
      known = typeof current[attribute] === 'number' ? (current[attribute] as number) : undefined;
      if (known !== undefined) remember(cacheKey, known);
    }
  }
  return { outcome: 'rate_limited', retryAfterSeconds: 1, rate: decide(known, now, limit, cost).headers };
}

function sameLimit(a: BucketLimit, b: BucketLimit): boolean {
  return a.burst === b.burst && a.perSecond === b.perSecond;
}

/** Best effort: if another request moved the bucket meanwhile, its write stands. */
async function correctTat(organizationId: string, attribute: string, written: number, wanted: number | undefined): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(organizationId),
        UpdateExpression: wanted === undefined ? 'REMOVE #tat' : 'SET #tat = :wanted',
        ConditionExpression: '#tat = :written',
        ExpressionAttributeNames: { '#tat': attribute },
        ExpressionAttributeValues: { ':written': written, ...(wanted === undefined ? {} : { ':wanted': wanted }) },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

function callerFrom(organization: OrganizationItem, key: ParsedApiKey): Caller | undefined {
  const entry = organization.keys?.[key.keyId];
  if (!entry || !sameHash(entry.hash, key.hash)) return undefined;
  return {
    organizationId: organization.id,
    organizationName: organization.name,
    kybStatus: organization.kybStatus,
    keyId: key.keyId,
    role: entry.role,
    ...(entry.memberId ? { memberId: entry.memberId } : {}),
  };
}
