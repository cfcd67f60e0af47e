import { InvalidResolution } from './errors.ts';
import type { OperationProgress } from './progress.ts';

export { InvalidResolution };

/**
 * What an operator's resolution of a parked operation answers (docs/decisions/063): one
 * conditional move from a parked status, or nothing changed and why. Never thrown for "already
 * moved": running it twice is safe.
 */
export interface OperatorResolution {
  resolved: boolean;
  status: string;
  detail: string;
}

/** The only statuses an operator resolves from: parked for a person (never a running operation). */
export const parkedStatuses: readonly string[] = ['IN_DOUBT', 'NEEDS_ATTENTION'];

/** The timeline detail of a resolution: the operator's note is the audit trail. */
export const operatorDetail = (note: string) => `resolved by operations: ${note}`;

const maxNoteLength = 500;

/** The note is the audit trail: required, one line of at most 500 characters; answered trimmed. */
export function requireNote(note: string | undefined): string {
  const trimmed = note?.trim();
  if (!trimmed) throw new InvalidResolution('--note is required: a resolution needs a note, what operations confirmed with the provider (the audit trail)');
  if (trimmed.length > maxNoteLength || /[\r\n]/.test(trimmed)) throw new InvalidResolution(`--note is one line of at most ${maxNoteLength} characters`);
  return trimmed;
}

/** What a resolution does to one parked operation: the move and what to answer once it is written, or why nothing changes. */
export type ResolutionPlan<T> = { transition: T; done: string } | { unchanged: string };

/**
 * One operator resolution, the same for every operation: the outcome is one the operation has,
 * the note is required, only a parked operation moves, the move is the operation's one conditional
 * write (with the money its outcome implies), and a resolution that lost a race to another writes
 * nothing and says so. `done` is what the answer says after `<from> → `.
 */
export async function resolveParked<Ref, R, T>(
  progress: Pick<OperationProgress<Ref, R, string, string, T>, 'noun' | 'idOf' | 'statusOf' | 'load' | 'write'>,
  ref: Ref,
  resolution: { as: string; outcomes: readonly string[]; note: string | undefined; plan(record: R, detail: string): ResolutionPlan<T> },
): Promise<OperatorResolution> {
  const { noun } = progress;
  const id = progress.idOf(ref);
  if (!resolution.outcomes.includes(resolution.as)) throw new InvalidResolution(`a ${noun} resolves as ${resolution.outcomes.join(' or ')}`);
  const detail = operatorDetail(requireNote(resolution.note));
  const record = await progress.load(ref);
  const status = progress.statusOf(record);
  if (!parkedStatuses.includes(status)) {
    return { resolved: false, status, detail: `${noun} ${id} is ${status}, not parked, not IN_DOUBT or NEEDS_ATTENTION: nothing changed` };
  }
  const plan = resolution.plan(record, detail);
  if ('unchanged' in plan) return { resolved: false, status, detail: plan.unchanged };
  const written = await progress.write(record, plan.transition);
  if (!written) {
    const now = progress.statusOf(await progress.load(ref));
    return { resolved: false, status: now, detail: `${noun} ${id} moved from ${status} to ${now} meanwhile: nothing changed` };
  }
  return { resolved: true, status: progress.statusOf(written), detail: `${status} → ${plan.done}` };
}
