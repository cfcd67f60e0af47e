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

/** A resolution asked for wrongly (an outcome the kind does not have, a missing hash, no note): nothing was written. */
export class InvalidResolution extends Error {
  override name = 'InvalidResolution';
}

const maxNoteLength = 500;

/** The note is the audit trail: required, one line of at most 500 characters; answered trimmed. */
export function requireNote(note: string | undefined): string {
  const trimmed = note?.trim();
  if (!trimmed) throw new InvalidResolution('--note is required: a resolution needs a note, what operations confirmed with the provider (the audit trail)');
  if (trimmed.length > maxNoteLength || /[\r\n]/.test(trimmed)) throw new InvalidResolution(`--note is one line of at most ${maxNoteLength} characters`);
  return trimmed;
}
