import { describe, expect, it } from 'vitest';
import { operationProgress } from '#operations/kit/progress.ts';
import { askAttempts, type ProviderCall } from '#operations/kit/providerCall.ts';
import { backoffSeconds, nextPoll, waitedIn } from '#operations/kit/poll.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';

/**
 * The kit's provider call and poll on an operation kept in memory: the rules every operation's
 * call follows (payout, chain send, off-ramp deposit, on-ramp delivery), whatever its store. The
 * operations' own e2e and integration tests walk them against the simulators.
 */
type Status = 'CALLING' | 'DONE' | 'FAILED' | 'IN_DOUBT';
interface Sample { id: string; status: Status; attempts: number; detail?: string }
interface Move { to: Status; attempts?: number; detail?: string }
type Answer = { status: 'accepted' } | { status: 'refused'; reason: string };
class Unanswered extends Error {}

function sampleProgress(record: Sample) {
  const stored = new Map([[record.id, record]]);
  return operationProgress<{ id: string }, Sample, Status, 'call' | 'done', Move>({
    noun: 'sample',
    idOf: (ref) => ref.id,
    refOf: (r) => ({ id: r.id }),
    find: async (ref) => stored.get(ref.id),
    statusOf: (r) => r.status,
    write: async (r, move) => {
      if (stored.get(r.id)!.status !== r.status) return undefined;
      const next = { ...r, status: move.to, attempts: move.attempts ?? r.attempts, detail: move.detail };
      stored.set(r.id, next);
      return next;
    },
    outcomeOf: (r) => (r.status === 'CALLING' ? 'call' : 'done'),
  });
}

function call(record: Sample, answer: () => Promise<Answer>, known?: Answer): ProviderCall<Move, 'call' | 'done', Answer> {
  return {
    call: answer,
    answered: (a) => ({ transition: a.status === 'refused' ? { to: 'FAILED', detail: 'released' } : { to: 'DONE' } }),
    unanswered: { error: Unanswered, askByReference: async () => known, inDoubt: { to: 'IN_DOUBT' } },
    unavailable: {
      attempts: record.attempts,
      maxAttempts: 5,
      retry: { transition: { to: 'CALLING', attempts: record.attempts + 1 }, outcome: 'call', waitSeconds: 30 },
      gaveUp: { to: 'FAILED', detail: 'gave up, released' },
    },
  };
}

const unavailable = async (): Promise<Answer> => {
  throw new ProviderUnavailable('down');
};

describe("the kit's provider call", () => {
  it('counts an unavailable answer and calls again, and fails on the fifth with nothing sent', async () => {
    let record: Sample = { id: 'a', status: 'CALLING', attempts: 1 };
    const progress = sampleProgress(record);
    for (let attempt = 1; attempt < 5; attempt += 1) {
      expect(await progress.callProvider(record, call(record, unavailable))).toEqual({ outcome: 'call', waitSeconds: 30 });
      record = await progress.load({ id: 'a' });
      expect(record.attempts).toBe(attempt + 1);
    }
    expect(await progress.callProvider(record, call(record, unavailable))).toEqual({ outcome: 'done' });
    expect(await progress.load({ id: 'a' })).toMatchObject({ status: 'FAILED', detail: 'gave up, released', attempts: 5 });
  });

  it('asks by reference after an unanswered call: its answer is taken, none parks IN_DOUBT, asks that keep failing too', async () => {
    const unanswered = async (): Promise<Answer> => {
      throw new Unanswered('no answer');
    };
    for (const [known, status] of [[{ status: 'accepted' }, 'DONE'], [undefined, 'IN_DOUBT']] as const) {
      const record: Sample = { id: 'b', status: 'CALLING', attempts: 1 };
      const progress = sampleProgress(record);
      await progress.callProvider(record, call(record, unanswered, known));
      expect((await progress.load({ id: 'b' })).status).toBe(status);
    }
    const record: Sample = { id: 'c', status: 'CALLING', attempts: 1 };
    const progress = sampleProgress(record);
    let asked = 0;
    await progress.callProvider(record, { ...call(record, unanswered), unanswered: { error: Unanswered, askByReference: () => ((asked += 1), Promise.reject(new Error('down'))), inDoubt: { to: 'IN_DOUBT' } } });
    expect((await progress.load({ id: 'c' })).status).toBe('IN_DOUBT');
    expect(asked).toBe(askAttempts);

    // A failed ask is asked again: the provider's answer on the next is taken, nothing parks.
    const again: Sample = { id: 'f', status: 'CALLING', attempts: 1 };
    const failingOnce = [new Error('status call timed out')];
    const answered = async (): Promise<Answer | undefined> => {
      const failure = failingOnce.shift();
      if (failure) throw failure;
      return { status: 'accepted' };
    };
    const againProgress = sampleProgress(again);
    await againProgress.callProvider(again, { ...call(again, unanswered), unanswered: { error: Unanswered, askByReference: answered, inDoubt: { to: 'IN_DOUBT' } } });
    expect((await againProgress.load({ id: 'f' })).status).toBe('DONE');
  });

  it('moves as the answer says, and throws what it does not know', async () => {
    const record: Sample = { id: 'd', status: 'CALLING', attempts: 1 };
    const progress = sampleProgress(record);
    await progress.callProvider(record, call(record, async () => ({ status: 'refused', reason: 'no' })));
    expect(await progress.load({ id: 'd' })).toMatchObject({ status: 'FAILED', detail: 'released' });
    const other: Sample = { id: 'e', status: 'CALLING', attempts: 1 };
    await expect(sampleProgress(other).callProvider(other, call(other, () => Promise.reject(new TypeError('bug'))))).rejects.toBeInstanceOf(TypeError);
  });
});

describe("the kit's poll", () => {
  it('backs off a tenth of the wait between its bounds, and is overdue only past its maximum age', () => {
    const policy = { leastSeconds: 5, mostSeconds: 600, maxAgeDays: 3 };
    expect([0, 600_000, 86_400_000].map((ms) => backoffSeconds(policy, ms))).toEqual([5, 60, 600]);
    expect(nextPoll(policy, 3 * 86_400_000)).toEqual({ overdue: false, waitSeconds: 600 });
    expect(nextPoll(policy, 3 * 86_400_000 + 1)).toEqual({ overdue: true });
    expect(nextPoll({ leastSeconds: 5, mostSeconds: 600 }, 365 * 86_400_000)).toEqual({ overdue: false, waitSeconds: 600 });
  });

  it('measures the wait from the last time the timeline reached the status', () => {
    const record = { updatedAt: '2026-01-01T00:09:00Z', timeline: [{ status: 'SENDING', at: '2026-01-01T00:00:00Z' }, { state: 'SENDING', at: '2026-01-01T00:05:00Z' }] };
    expect(waitedIn(record, 'SENDING', Date.parse('2026-01-01T00:10:00Z'))).toBe(300_000);
    expect(waitedIn(record, 'PAID', Date.parse('2026-01-01T00:10:00Z'))).toBe(60_000);
  });
});
