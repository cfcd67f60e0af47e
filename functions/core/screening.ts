/**
 * Compliance screening of a payment's Travel Rule parties and the recipient reference, before
 * any value moves. The list here is the simulated screening list (fictional names, documented in
 * docs/decisions/043-compliance-screening.md so integrators can trigger a hold on purpose); a
 * real screening provider replaces it behind the same function.
 *
 * Names are compared normalized (case, accents, punctuation and spacing ignored), as whole
 * words in order, so "Ivan  DRAGOMIR-Petrov" hits "ivan dragomir petrov" but "Ivana" does not.
 */
export const screeningList: readonly string[] = [
  'ivan dragomir petrov',
  'blocked person',
  'sanctioned holdings ltd',
  'northwind shell company',
  'mara volkova',
];

export type ScreenedParty = 'originator' | 'beneficiary' | 'recipientReference';

export interface ScreeningInput {
  originatorName?: string;
  beneficiaryName?: string;
  recipientReference: string;
}

/** The first party that hits the list, or undefined. The caller never learns which name matched. */
export function screen(input: ScreeningInput): { party: ScreenedParty; entry: string } | undefined {
  const parties: [ScreenedParty, string | undefined][] = [
    ['originator', input.originatorName],
    ['beneficiary', input.beneficiaryName],
    ['recipientReference', input.recipientReference],
  ];
  for (const [party, text] of parties) {
    if (!text) continue;
    const words = ` ${normalize(text)} `;
    const entry = screeningList.find((name) => words.includes(` ${name} `));
    if (entry) return { party, entry };
  }
  return undefined;
}

function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    // Invisible format characters (soft hyphen, zero-width joiners, BOM) are dropped, not read as spaces:
    // "Dra\u00ADgomir" reads "Dragomir".
    .replace(/\p{Cf}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** What the compliance record keeps of an account: the last four characters of a long one, nothing of a short one. */
export function maskAccount(account: string): string {
  const visible = account.length >= 8 ? account.slice(-4) : '';
  return `${'*'.repeat(Math.max(4, account.length - visible.length))}${visible}`;
}
