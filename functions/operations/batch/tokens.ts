import { ApiError } from '#platform/errors.ts';
import { chargeFurtherTokens } from '#store/access.ts';
import type { OrganizationItem } from '#store/organizations.ts';
import { defaultLimits } from '#domain/rateLimit.ts';
import type { ItemTokens } from './intake.ts';

/**
 * A batch costs one initiate token per item (contract, Limits): the first was charged when the
 * request arrived, the rest once the batch is known to be valid. A batch larger than the
 * organization's initiate bucket can never pass, however long the caller waits: the 429 says so,
 * with the capacity, rather than a Retry-After that would never be enough.
 */
export function initiateTokens(organization: OrganizationItem): ItemTokens & { headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  // The organization item the request's own charge returned: its limit needs no read.
  const limit = organization.rateLimits?.initiate ?? defaultLimits.initiate;
  const refuseWhatCanNeverPass = (itemCount: number) => {
    if (itemCount <= limit.burst) return;
    throw new ApiError(
      'rate_limited',
      `A batch of ${itemCount} items needs ${itemCount} initiate tokens, and this organization's initiate bucket holds at most ${limit.burst}: it can never pass. Send it as batches of at most ${limit.burst} items, or ask us to raise the limit.`,
      { retryAfterSeconds: Math.max(1, Math.ceil(limit.burst / limit.perSecond)), capacity: limit.burst, needed: itemCount },
      { 'retry-after': String(Math.max(1, Math.ceil(limit.burst / limit.perSecond))) },
    );
  };
  const charge = async (itemCount: number) => {
    refuseWhatCanNeverPass(itemCount);
    if (itemCount <= 1) return;
    const charged = await chargeFurtherTokens(organization.id, 'initiate', itemCount - 1);
    if (charged.outcome === 'rate_limited') {
      throw new ApiError(
        'rate_limited',
        `A batch of ${itemCount} items needs ${itemCount} initiate tokens; retry after ${charged.retryAfterSeconds} seconds with the same batchId.`,
        { retryAfterSeconds: charged.retryAfterSeconds },
        { 'retry-after': String(charged.retryAfterSeconds), ...charged.rate },
      );
    }
    // The answer's rate headers say what the whole batch left in the bucket.
    Object.assign(headers, charged.rate);
  };
  return { refuseWhatCanNeverPass, charge, headers };
}
