import { ConditionalCheckFailedException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { sameHash, type ParsedApiKey } from '#domain/apiKeys.ts';
import { bucketSpan, decide, defaultLimits, headersAfter, type BucketLimit, type BucketName, type RateHeaders } from '#domain/rateLimit.ts';
import type { Role } from '#domain/permissions.ts';
import { StoreContended } from '#platform/errors.ts';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';
import { getApiKey, getOrganization, type ApiKeyItem, type OrganizationItem } from './organizations.ts';

/**
 * Authentication, then what the caller may do, then the rate bucket
 * (docs/decisions/076-authenticate-before-the-bucket.md, 107-decide-before-the-bucket.md): a
 * strongly consistent GetItem of the key's own item (decision 077) decides who is calling and with
 * what role, and one conditional UpdateItem on the organization item advances the bucket's TAT and
 * returns the organization (name, KYB status). An unknown or revoked key is 401 and never sees or
 * moves a bucket; a role the route refuses, or an organization its KYB gate refuses, is answered
 * without a token taken. The two calls go out together (one round trip of latency) for a key this
 * process has already seen authenticate with a role the route admits; for any other key the read
 * comes first, so a wrong key or a refused role charges nothing.
 */
export interface Caller {
  organizationId: string;
  organizationName: string;
  kybStatus: OrganizationItem['kybStatus'];
  keyId: string;
  /** SHA-256 of the key presented: a rotation is conditioned on it still being the key's. */
  keyHash: string;
  role: Role;
  /** Set for member keys; absent for the organization key. */
  memberId?: string;
}

/** What a key item grants: the role, and the member it belongs to (none for the organization key). */
export interface Grant {
  role: Role;
  memberId?: string;
}

/** What the route asks of a caller before it may spend the organization's tokens. */
export interface Gate {
  /** Whether the key's role (and kind) may call the route: its permission, owner-only. */
  admits: (grant: Grant) => boolean;
  /** The organization must be KYB approved. */
  kyb: boolean;
}

/** A route with no permission and no KYB gate. */
export const openGate: Gate = { admits: () => true, kyb: false };

export type AccessResult =
  | { outcome: 'allowed'; caller: Caller; organization: OrganizationItem; rate: RateHeaders }
  | { outcome: 'rate_limited'; retryAfterSeconds: number; rate: RateHeaders }
  /** Authenticated, refused by the gate (`role` before `kyb`); nothing was charged, `rate` shows the bucket as it stands. */
  | { outcome: 'refused'; refusal: 'role' | 'kyb'; grant: Grant; organizationId: string; rate: RateHeaders }
  | { outcome: 'unauthorized' };

const tatAttribute: Record<BucketName, string> = { initiate: 'tatInitiate', write: 'tatWrite', read: 'tatRead' };

/**
 * Last TAT and limit this process saw per organization and bucket: they pick the update form
 * first. A TAT only moves forward (a refund, which moves it back, forgets it here), so a
 * remembered one can only under-state the load: a 429 decided from it without a write is never
 * wrong for the limit it was decided with.
 */
const lastSeenTat = new Map<string, number>();
const lastSeenLimit = new Map<string, BucketLimit>();
/** When the table last told this process the bucket's TAT: a refusal decided on an older one asks the table first. */
const lastSeenAt = new Map<string, number>();

/**
 * An operator's new limit starts a full bucket (organizations.ts setRateLimit), the one way a TAT
 * moves back: so a 429 this process would decide alone, on what it saw more than this long ago,
 * is asked of the table once instead (at most one extra write a second per busy bucket).
 */
const trustLocalRefusalMs = 1_000;

function remember(cacheKey: string, tat: number): void {
  lastSeenTat.set(cacheKey, Math.max(tat, lastSeenTat.get(cacheKey) ?? tat));
  lastSeenAt.set(cacheKey, Date.now());
}

/**
 * Attempts before giving up. Each failed attempt returns the item, so the next one uses the right
 * form; only a bucket crossing between idle and busy meanwhile needs a third. Past the last one, a
 * full bucket is a 429 and a bucket with room a 503 (lost races, StoreContended).
 */
const maxAttempts = 6;
/** Transaction conflicts waited out (docs/decisions/051): they say nothing about the key or the bucket. */
const maxConflicts = 5;

function isTransactionConflict(error: unknown): boolean {
  return error instanceof TransactionConflictException;
}

/**
 * Hashes of keys that authenticated in this process, most recent last, with the grant their item
 * carried: for these the bucket is charged beside the key's read rather than after it, when the
 * grant seen is one the route admits. It never decides authentication or permission (the read
 * does, every time); a key found revoked, or with a role the route refuses since, is corrected and
 * its charge refunded, so a stale entry moves a bucket at most once per process, for a moment.
 */
const seenAuthenticated = new Map<string, Grant>();
const maxSeenAuthenticated = 10_000;

function rememberAuthenticated(hash: string, grant: Grant): void {
  seenAuthenticated.delete(hash);
  seenAuthenticated.set(hash, grant);
  if (seenAuthenticated.size > maxSeenAuthenticated) seenAuthenticated.delete(seenAuthenticated.keys().next().value!);
}

function grantOf(item: ApiKeyItem): Grant {
  return { role: item.role, ...(item.memberId ? { memberId: item.memberId } : {}) };
}

function authentic(item: ApiKeyItem | undefined, key: ParsedApiKey): item is ApiKeyItem {
  return item !== undefined && item.organizationId === key.organizationId && sameHash(item.hash, key.hash);
}

/**
 * `now` (epoch ms) is the time the bucket is charged at: by default, when the charge goes out.
 * `gate` is what the route asks of the caller: checked before any token is taken (decision 107).
 */
export async function authorizeAndCharge(key: ParsedApiKey, bucket: BucketName, gate: Gate = openGate, now?: number, cost = 1): Promise<AccessResult> {
  let item: ApiKeyItem | undefined;
  let charged: Charge;
  const seen = seenAuthenticated.get(key.hash);
  if (seen && gate.admits(seen)) {
    [item, charged] = await Promise.all([getApiKey(key.organizationId, key.keyId), charge(key.organizationId, bucket, now, cost, gate.kyb)]);
  } else if (seen) {
    // A key seen before with a role this route refuses: the read decides, and the bucket is only looked at.
    const [read, standing] = await Promise.all([getApiKey(key.organizationId, key.keyId), bucketAsItStands(key.organizationId, bucket)]);
    item = read;
    if (!authentic(item, key)) {
      seenAuthenticated.delete(key.hash);
      return { outcome: 'unauthorized' };
    }
    rememberAuthenticated(key.hash, grantOf(item));
    if (!gate.admits(grantOf(item))) {
      if (!standing) return { outcome: 'unauthorized' };
      return { outcome: 'refused', refusal: 'role', grant: grantOf(item), organizationId: key.organizationId, rate: standing };
    }
    // Its role changed since: charge as for any key that may call the route.
    charged = await charge(key.organizationId, bucket, now, cost, gate.kyb);
  } else {
    item = await getApiKey(key.organizationId, key.keyId);
    if (!authentic(item, key)) return { outcome: 'unauthorized' };
    if (!gate.admits(grantOf(item))) {
      rememberAuthenticated(key.hash, grantOf(item));
      const standing = await bucketAsItStands(key.organizationId, bucket);
      if (!standing) return { outcome: 'unauthorized' };
      return { outcome: 'refused', refusal: 'role', grant: grantOf(item), organizationId: key.organizationId, rate: standing };
    }
    // Charged after the read (charge takes its time then): a time from before it would count the read's latency as tokens spent.
    charged = await charge(key.organizationId, bucket, now, cost, gate.kyb);
  }
  if (!authentic(item, key)) {
    seenAuthenticated.delete(key.hash);
    if (charged.outcome === 'allowed') await refund(key.organizationId, bucket, charged.increment);
    return { outcome: 'unauthorized' };
  }
  const grant = grantOf(item);
  rememberAuthenticated(key.hash, grant);
  if (charged.outcome === 'no_organization') return { outcome: 'unauthorized' };
  if (!gate.admits(grant)) {
    // The role changed since this process saw the key: the token taken beside the read goes back.
    if (charged.outcome === 'allowed') {
      await refund(key.organizationId, bucket, charged.increment);
      const limit = charged.organization.rateLimits?.[bucket] ?? defaultLimits[bucket];
      const tat = (charged.organization[tatAttribute[bucket]] as number) - charged.increment;
      return { outcome: 'refused', refusal: 'role', grant, organizationId: key.organizationId, rate: standingHeaders(tat, limit) };
    }
    const standing = charged.outcome === 'kyb_refused' ? charged.rate : await bucketAsItStands(key.organizationId, bucket);
    if (!standing) return { outcome: 'unauthorized' };
    return { outcome: 'refused', refusal: 'role', grant, organizationId: key.organizationId, rate: standing };
  }
  if (charged.outcome === 'kyb_refused') return { outcome: 'refused', refusal: 'kyb', grant, organizationId: key.organizationId, rate: charged.rate };
  if (charged.outcome === 'rate_limited') return charged;
  const { organization, rate } = charged;
  const caller: Caller = {
    organizationId: organization.id,
    organizationName: organization.name,
    kybStatus: organization.kybStatus,
    keyId: key.keyId,
    keyHash: key.hash,
    ...grant,
  };
  return { outcome: 'allowed', caller, organization, rate };
}

/** The headers of a bucket whose stored TAT is `tat`, nothing taken: a refused request shows the bucket as it stands. */
function standingHeaders(tat: number | undefined, limit: BucketLimit, now = Date.now()): RateHeaders {
  return headersAfter(Math.max(tat ?? now, now), now, limit);
}

/**
 * The bucket as the table holds it, read and not moved, for the headers of a request refused before
 * its charge; undefined when the organization is gone. Eventually consistent: only headers depend on it.
 */
async function bucketAsItStands(organizationId: string, bucket: BucketName): Promise<RateHeaders | undefined> {
  const organization = await getOrganization(organizationId);
  if (!organization) return undefined;
  const tat = organization[tatAttribute[bucket]];
  return standingHeaders(typeof tat === 'number' ? tat : undefined, organization.rateLimits?.[bucket] ?? defaultLimits[bucket]);
}

/**
 * Tokens of a request beyond the one its key was charged on arrival: a batch's further items,
 * charged once its body is known to be valid (a refused batch costs what any refused request costs).
 */
export async function chargeFurtherTokens(
  organizationId: string,
  bucket: BucketName,
  cost: number,
): Promise<{ outcome: 'allowed'; rate: RateHeaders } | { outcome: 'rate_limited'; retryAfterSeconds: number; rate: RateHeaders }> {
  if (cost <= 0) throw new Error('a further charge is at least one token');
  const charged = await charge(organizationId, bucket, undefined, cost, false);
  if (charged.outcome === 'no_organization' || charged.outcome === 'kyb_refused') throw new Error(`organization ${organizationId} vanished while its request ran`);
  return charged.outcome === 'allowed' ? { outcome: 'allowed', rate: charged.rate } : charged;
}

type Charge =
  | { outcome: 'allowed'; organization: OrganizationItem; rate: RateHeaders; /** What the TAT moved by: a refund takes it back. */ increment: number }
  | { outcome: 'rate_limited'; retryAfterSeconds: number; rate: RateHeaders }
  /** The route's KYB gate refused the organization: the condition that says so took nothing. */
  | { outcome: 'kyb_refused'; rate: RateHeaders }
  | { outcome: 'no_organization' };

/**
 * One token (or `cost`) from the organization's bucket: decision 004. With `requireKyb` the same
 * conditional update also asks that the organization be KYB approved, so a KYB refusal costs no
 * token and no extra call (decision 107).
 */
async function charge(organizationId: string, bucket: BucketName, fixedNow: number | undefined, cost: number, requireKyb: boolean): Promise<Charge> {
  const attribute = tatAttribute[bucket];
  const cacheKey = `${organizationId}#${bucket}`;
  let known: number | undefined = lastSeenTat.get(cacheKey);
  let limit: BucketLimit = defaultLimits[bucket];

  let conflicts = 0;
  let now = fixedNow ?? Date.now();
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    // What a concurrent request of this process learned meanwhile (the organization's own limit, read
    // back from the table) decides, not the default this request started with: fifty requests at once
    // after a limit was raised would otherwise refuse each other under the old one.
    limit = lastSeenLimit.get(cacheKey) ?? limit;
    let local = decide(known, now, limit, cost);
    // Refused at the time the request started: its earlier attempts took time, and the bucket refilled
    // meanwhile; decide on the time it is now (else a bucket filled by requests charged later is
    // measured against a moment past: a 429 with room, seen under load). Only then: a time that moves
    // with every attempt flips the bucket between its idle and busy forms and loses race after race.
    if (!local.allowed && fixedNow === undefined) {
      now = Date.now();
      local = decide(known, now, limit, cost);
    }
    const askTable = !local.allowed && attempt === 0 && Date.now() - (lastSeenAt.get(cacheKey) ?? 0) > trustLocalRefusalMs;
    if (!local.allowed && !askTable) return { outcome: 'rate_limited', retryAfterSeconds: local.retryAfterSeconds, rate: local.headers };
    // Asking the table: the idle form, which either fits a bucket reset meanwhile or returns what it holds.
    if (askTable) {
      known = undefined;
      lastSeenTat.delete(cacheKey);
    }
    const { increment, capacity } = bucketSpan(limit, cost);
    // Idle bucket (TAT not ahead of now): the new TAT is now + increment, whatever the old one.
    // Busy bucket: add the increment to the stored TAT, if that keeps it within capacity. Neither
    // form depends on the exact old value, so concurrent requests do not invalidate each other.
    const busy = known !== undefined && known > now;
    const kybCondition = requireKyb ? ' AND kybStatus = :approved' : '';
    try {
      const result = await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.organization(organizationId),
          UpdateExpression: busy ? 'SET #tat = #tat + :increment' : 'SET #tat = :newTat',
          ConditionExpression: busy
            ? `attribute_exists(pk) AND #tat BETWEEN :now AND :latest${kybCondition}`
            : `attribute_exists(pk) AND (attribute_not_exists(#tat) OR #tat <= :now)${kybCondition}`,
          ExpressionAttributeNames: { '#tat': attribute },
          ExpressionAttributeValues: {
            ':now': now,
            ...(requireKyb ? { ':approved': 'approved' } : {}),
            ...(busy ? { ':increment': increment, ':latest': now + capacity - increment } : { ':newTat': now + increment }),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const organization = result.Attributes as OrganizationItem;
      const written = organization[attribute] as number;
      const actualLimit = organization.rateLimits?.[bucket] ?? defaultLimits[bucket];
      lastSeenLimit.set(cacheKey, actualLimit);
      remember(cacheKey, written);
      if (sameLimit(actualLimit, limit)) {
        return { outcome: 'allowed', organization, rate: headersAfter(written, now, limit), increment };
      }
      // This process had not seen the organization's own limit yet: redo the decision with it.
      const previous = busy ? written - increment : undefined;
      const corrected = decide(previous, now, actualLimit, cost);
      await correctTat(organizationId, attribute, written, corrected.allowed ? corrected.newTat : previous);
      lastSeenTat.set(cacheKey, corrected.allowed ? corrected.newTat : (previous ?? now));
      if (!corrected.allowed) {
        return { outcome: 'rate_limited', retryAfterSeconds: corrected.retryAfterSeconds, rate: corrected.headers };
      }
      return {
        outcome: 'allowed',
        organization: { ...organization, [attribute]: corrected.newTat },
        rate: corrected.headers,
        increment: bucketSpan(actualLimit, cost).increment,
      };
    } catch (error) {
      if (isTransactionConflict(error) && conflicts < maxConflicts) {
        // A transaction holding the organization item for a moment refuses a single write
        // meanwhile, and the refused write changed nothing.
        conflicts += 1;
        attempt -= 1;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * conflicts));
        continue;
      }
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      if (!error.Item) return { outcome: 'no_organization' };
      const current = unmarshall(error.Item) as OrganizationItem;
      limit = current.rateLimits?.[bucket] ?? defaultLimits[bucket];
      if (requireKyb && current.kybStatus !== 'approved') {
        const tat = current[attribute];
        return { outcome: 'kyb_refused', rate: standingHeaders(typeof tat === 'number' ? tat : undefined, limit) };
      }
      // The bucket was in the other form, or full. Decide again on what it holds.
      lastSeenLimit.set(cacheKey, limit);
      known = typeof current[attribute] === 'number' ? (current[attribute] as number) : undefined;
      // What the table holds now, even when it moved back (a reset): not the larger of it and the past.
      if (known === undefined) lastSeenTat.delete(cacheKey);
      else lastSeenTat.set(cacheKey, known);
      lastSeenAt.set(cacheKey, Date.now());
      // Requests that lost a race to each other wait apart before their next try.
      if (attempt >= 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
  const last = decide(known, fixedNow ?? Date.now(), limit, cost);
  // Room in the bucket, but every attempt lost its race (concurrent requests of the organization moving
  // the bucket between its idle and busy forms): not a rate limit. Nothing was taken; 503, retry.
  if (last.allowed) throw new StoreContended('the rate bucket of the organization');
  return { outcome: 'rate_limited', retryAfterSeconds: last.retryAfterSeconds, rate: last.headers };
}

/**
 * Gives back a token charged beside the read of a key that turned out revoked. Moving the TAT
 * back by the increment is right in either form (an idle bucket stays idle), and the TAT this
 * process remembers is forgotten, since it now overstates the load.
 */
async function refund(organizationId: string, bucket: BucketName, increment: number): Promise<void> {
  const attribute = tatAttribute[bucket];
  lastSeenTat.delete(`${organizationId}#${bucket}`);
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(organizationId),
        UpdateExpression: 'SET #tat = #tat - :increment',
        ConditionExpression: 'attribute_exists(#tat)',
        ExpressionAttributeNames: { '#tat': attribute },
        ExpressionAttributeValues: { ':increment': increment },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
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
