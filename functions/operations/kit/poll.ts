/**
 * Polling something that moves by itself (a payout, a send, a delivery, a batch's items), the same
 * for every operation: the wait backs off with the time already waited (a tenth of it, between
 * `leastSeconds` and `mostSeconds`), so a slow rail costs a few dozen workflow rounds a day, far
 * from Step Functions' history limit; after `maxAgeDays` without a final answer the poll is
 * overdue and the operation is parked for a person. Without `maxAgeDays` it is never overdue.
 */
export interface PollPolicy {
  leastSeconds: number;
  mostSeconds: number;
  maxAgeDays?: number;
}

export type NextPoll = { overdue: false; waitSeconds: number } | { overdue: true };

/** The wait before the next look, after `waitedMs` of waiting. */
export function backoffSeconds(policy: PollPolicy, waitedMs: number): number {
  return Math.min(policy.mostSeconds, Math.max(policy.leastSeconds, Math.floor(waitedMs / 10_000)));
}

/** The next look after `waitedMs`: how long to wait, or overdue. */
export function nextPoll(policy: PollPolicy, waitedMs: number): NextPoll {
  if (policy.maxAgeDays !== undefined && waitedMs > policy.maxAgeDays * 86_400_000) return { overdue: true };
  return { overdue: false, waitSeconds: backoffSeconds(policy, waitedMs) };
}

/** How long an operation has been in `status`: since the last timeline entry that reached it (its last update when none says). */
export function waitedIn(record: { timeline: readonly { at: string; status?: string; state?: string }[]; updatedAt: string }, status: string, now = Date.now()): number {
  const since = [...record.timeline].reverse().find((entry) => (entry.status ?? entry.state) === status)?.at ?? record.updatedAt;
  return now - Date.parse(since);
}
