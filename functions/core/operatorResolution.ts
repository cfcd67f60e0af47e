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

/** Refuses an empty note; answers it trimmed. */
export function requireNote(note: string): string {
  const trimmed = note.trim();
  if (!trimmed) throw new Error('a resolution needs a note (the audit trail)');
  return trimmed;
}
