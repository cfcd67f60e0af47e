import { lookAlikeReadings } from './lookAlikes.ts';

/**
 * Compliance screening of every party money can reach, before any value moves: a payment's (and a
 * batch item's) Travel Rule parties and recipient reference, an off-ramp beneficiary, a withdrawal
 * address. The lists here are simulated (fictional names and addresses, documented in
 * docs/decisions/043-compliance-screening.md and 079-blocked-addresses.md so integrators can
 * trigger a hold on purpose); a real screening provider replaces them behind the same functions.
 *
 * Names are compared folded (case, accents, punctuation, spacing, invisible characters and
 * look-alike letters ignored: decision 078), as whole words in order, so "Ivan  DRAGOMIR-Petrov"
 * and "Ivаn Dragomir Petrov" with a Cyrillic "а" hit "ivan dragomir petrov" but "Ivana" does not.
 */
export const screeningList: readonly string[] = [
  'ivan dragomir petrov',
  'blocked person',
  'sanctioned holdings ltd',
  'northwind shell company',
  'mara volkova',
];

/** Simulated blocked destination addresses (decision 079), compared without regard to case (EIP-55 is only a checksum). */
export const blockedAddresses: readonly string[] = [
  '0x000000000000000000000000000000000b10c4ed',
  '0xb10c4ed000000000000000000000000000000001',
  '0x5a4c710e0000000000000000000000000000dead',
];

export type ScreenedParty = 'originator' | 'beneficiary' | 'recipientReference' | 'destinationAddress';

export interface ScreeningHit {
  party: ScreenedParty;
  entry: string;
}

/** The parties of one payment. POST /transactions and every batch item are screened through `screen` with these. */
export interface ScreeningInput {
  originatorName?: string;
  beneficiaryName?: string;
  recipientReference: string;
}

/** The first party that hits the list, or undefined. The caller never learns which name matched. */
export function screen(input: ScreeningInput): ScreeningHit | undefined {
  const parties: [ScreenedParty, string | undefined][] = [
    ['originator', input.originatorName],
    ['beneficiary', input.beneficiaryName],
    ['recipientReference', input.recipientReference],
  ];
  for (const [party, text] of parties) {
    const entry = text ? listedName(text) : undefined;
    if (entry) return { party, entry };
  }
  return undefined;
}

/** An off-ramp beneficiary (third-party bank account): screened at registration and again at every off-ramp to it. */
export function screenBeneficiary(name: string): ScreeningHit | undefined {
  const entry = listedName(name);
  return entry ? { party: 'beneficiary', entry } : undefined;
}

/** A withdrawal's destination address. */
export function screenAddress(address: string): ScreeningHit | undefined {
  const entry = blockedAddresses.find((blocked) => blocked === address.toLowerCase());
  return entry ? { party: 'destinationAddress', entry } : undefined;
}

// Folded at first use, not at load: a module-level call would keep the look-alike table in every
// bundle that imports anything of this file, even one that never screens.
let foldedList: { entry: string; words: string }[] | undefined;

function listedName(text: string): string | undefined {
  const words = ` ${foldedWords(text)} `;
  foldedList ??= screeningList.map((entry) => ({ entry, words: ` ${foldedWords(entry)} ` }));
  return foldedList.find((listed) => words.includes(listed.words))?.entry;
}

/**
 * The text as words of folded letters, one space between words. Each character is folded on its
 * own; one that folds to Latin letters or digits is part of a word, as is any other letter (it
 * matches no listed name); anything else separates words. Per character, not per string, because
 * a skeleton can turn punctuation into a letter ("—" into "ー") and must not glue two words.
 * Accents (nonspacing marks) and invisible format characters (soft hyphen, zero-width joiners,
 * BOM) are nothing: "Dra\u00ADgomír" reads "Dragomir". A spacing mark is a glyph of its own and is
 * folded like a letter (Telugu "ం" reads "o"). `fold` is for test/unit/screening.test.ts, which reads
 * every character through the whole confusables table as well and expects the same words.
 */
export function foldedWords(text: string, fold: (ch: string) => string = foldedChar): string {
  let out = '';
  for (const ch of text.normalize('NFD')) {
    if (/[\p{Mn}\p{Me}\p{Cf}]/u.test(ch)) continue;
    const folded = fold(ch);
    // Stryker disable Regex,MethodExpression: equivalent, a fold that mixes Latin with other letters stays in its word either way and matches no listed name; every listed name is Latin, so the case of another script's letter never decides a hit
    if (/^[a-z0-9]+$/.test(folded)) out += folded;
    else if (/[\p{L}\p{N}\p{M}]/u.test(ch)) out += ch.toLowerCase();
    // Stryker restore Regex,MethodExpression
    else out += ' ';
  }
  // Stryker disable next-line MethodExpression: equivalent, listedName pads both sides with a space, so an edge space changes no hit
  return out.replace(/ +/g, ' ').trim();
}

/**
 * One character as the letters it reads as, whatever its case: its TR39 skeleton (Unicode's
 * confusables.txt, through `unhomoglyph`), in compatibility form (fullwidth, ligatures, Roman
 * numerals) and lower case, then the skeleton of that again, so an upper-case look-alike
 * (Cyrillic "М") reaches the skeleton of the lower-case letter ("m" is "rn"). TR39 gives "I" the
 * prototype "l" while "i" is its own, so "l" is then read as "i": without case, "IVAN", "Ivan"
 * and "lvan" look alike.
 * Of the 6,311 skeletons, lookAlikes.ts holds the 1,315 characters whose Latin reading they change
 * (generated from the whole table, every code point tried: docs/decisions/157); any other character
 * reads as its `plainFold`. The map is built at the first name screened.
 */
let readingOf: Map<string, string> | undefined;

function foldedChar(ch: string): string {
  readingOf ??= new Map(Object.entries(lookAlikeReadings).flatMap(([reading, chars]) => [...chars].map((lookAlike) => [lookAlike, reading] as const)));
  return readingOf.get(ch) ?? plainFold(ch);
}

/** A character's fold without look-alikes: compatibility form, lower case, no marks, and "l" read as "i". */
export function plainFold(text: string): string {
  return plainLetters(text).replace(/l/g, 'i');
}

/** Compatibility form and lower case, without marks or invisible format characters. */
export function plainLetters(text: string): string {
  // Stryker disable next-line Regex: equivalent, a global replace by nothing removes a run one mark at a time as well
  const withoutMarks = (t: string) => t.normalize('NFKD').replace(/[\p{Mn}\p{Me}\p{Cf}]+/gu, '');
  return withoutMarks(withoutMarks(text).toLowerCase());
}
