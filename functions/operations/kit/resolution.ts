import { InvalidResolution } from './errors.ts';

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
 * the note is required, only a parked operation moves, the move is one conditional write (with
 * the money its outcome implies), and a resolution that lost a race to another writes nothing and
 * says so. `done` is what the answer says after `<from> → `.
 */
export async function resolveParked<R, T>(input: {
  noun: string;
  id: string;
  as: string;
  outcomes: readonly string[];
  note: string | undefined;
  load(): Promise<R>;
  statusOf(record: R): string;
  plan(record: R, detail: string): ResolutionPlan<T>;
  write(record: R, transition: T): Promise<R | undefined>;
}): Promise<OperatorResolution> {
  if (!input.outcomes.includes(input.as)) throw new InvalidResolution(`a ${input.noun} resolves as ${input.outcomes.join(' or ')}`);
  const detail = operatorDetail(requireNote(input.note));
  const record = await input.load();
  const status = input.statusOf(record);
  if (!parkedStatuses.includes(status)) {
    return { resolved: false, status, detail: `${input.noun} ${input.id} is ${status}, not parked, not IN_DOUBT or NEEDS_ATTENTION: nothing changed` };
  }
  const plan = input.plan(record, detail);
  if ('unchanged' in plan) return { resolved: false, status, detail: plan.unchanged };
  const written = await input.write(record, plan.transition);
  if (!written) {
    const now = input.statusOf(await input.load());
    return { resolved: false, status: now, detail: `${input.noun} ${input.id} moved from ${status} to ${now} meanwhile: nothing changed` };
  }
  return { resolved: true, status: input.statusOf(written), detail: `${status} → ${plan.done}` };
}
