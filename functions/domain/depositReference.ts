/**
 * The deposit reference: what an organization quotes on a bank wire so the money is credited to
 * it (GET /treasury/deposit-instructions). One per organization, identical for every currency,
 * stable for ever, not a secret (docs/decisions/053-deposit-instructions.md).
 *
 *   REF <organization ULID, 26 chars> <check char>      e.g. REF01JDQ8V3ZK7M2A9X4B6C8D0E1F4
 *
 * Derived from the organization id, never stored: the ULID of `org_<ULID>` is written in
 * Crockford's base 32 (0-9 A-Z without I, L, O, U, so no letter is mistaken for a digit), which is
 * also the reference's alphabet. Being the id itself, it is unique per organization and the same
 * on every call, and parsing recovers the organization with no lookup.
 *
 * The check character is the Damm algorithm over the quasigroup x∘y = 2·x ⊕ y of GF(32) (the
 * field of polynomials over GF(2) modulo x⁵ + x² + 1): fold every character of the reference with
 * `interim = 2·interim ⊕ value`, and the check character is the one that brings the fold to 0.
 * The fold is the polynomial Σ vᵢ·2^(n−i), so for any position at distance k from the end:
 *   - a single substitution v → w changes it by (v ⊕ w)·2^k, never 0 when v ≠ w;
 *   - an adjacent transposition vw → wv changes it by (v ⊕ w)·(2 ⊕ 1)·2^k, never 0 when v ≠ w;
 *   - so does a jump transposition vuw → wuv, by (v ⊕ w)·(2 ⊕ 1)²·2^k,
 * because GF(32) has no zero divisors. Every single-character change and every adjacent
 * transposition is detected, the check character included (test/unit/depositReference.test.ts);
 * a Luhn mod N would miss the transposition of the first and last symbols of its alphabet.
 * Insertions and deletions change the length, which is fixed.
 */

/** Crockford's base 32: the alphabet of ULIDs and of the reference. */
export const referenceAlphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const referencePrefix = 'REF';
const ulidLength = 26;
export const referenceLength = referencePrefix.length + ulidLength + 1;
const organizationPrefix = 'org_';

const valueOf = new Map([...referenceAlphabet].map((character, index) => [character, index]));

/** Multiplication by 2 (the polynomial x) in GF(32) = GF(2)[x] / (x⁵ + x² + 1). */
function double(value: number): number {
  const shifted = value << 1;
  return shifted & 0b100000 ? shifted ^ 0b100101 : shifted;
}

/** The Damm fold of the characters; undefined when one is outside the alphabet. */
function fold(text: string): number | undefined {
  let interim = 0;
  for (const character of text) {
    const value = valueOf.get(character);
    if (value === undefined) return undefined;
    interim = double(interim) ^ value;
  }
  return interim;
}

/** The check character that makes `body + check` fold to 0. */
export function checkCharacter(body: string): string {
  const interim = fold(body);
  if (interim === undefined) throw new Error('the reference body has a character outside its alphabet');
  return referenceAlphabet[double(interim)]!;
}

/** A ULID: 26 Crockford characters, the first at most 7 (128 bits). */
function isUlid(text: string): boolean {
  // Stryker disable next-line MethodExpression,ArrayDeclaration: equivalent, a character outside the alphabet fails the fold first (checkCharacter throws, parsing refuses)
  return text.length === ulidLength && /^[0-7]/.test(text) && [...text].every((character) => valueOf.has(character));
}

/** The organization's reference. Throws for an id that is not `org_<ULID>` (every organization's id is). */
export function depositReferenceOf(organizationId: string): string {
  // Stryker disable next-line StringLiteral: equivalent, any text that is not a ULID is refused alike
  const ulid = organizationId.startsWith(organizationPrefix) ? organizationId.slice(organizationPrefix.length) : '';
  if (!isUlid(ulid)) throw new Error(`organization id ${JSON.stringify(organizationId)} is not org_<ULID>`);
  const body = `${referencePrefix}${ulid}`;
  return `${body}${checkCharacter(body)}`;
}

export interface ParsedDepositReference {
  /** The reference in its canonical form (upper case, no separators). */
  reference: string;
  /** The organization it names. Whether that organization exists is the caller's question. */
  organizationId: string;
}

/**
 * The organization a reference names, or undefined when the text is not a whole, valid reference:
 * wrong length or prefix, a character outside the alphabet (including I, L, O, U: no guessing what
 * was meant), or a check character that does not match. A mangled reference matches nothing.
 * Letter case, spaces and hyphens are not significant (banks upper-case and break free text).
 */
export function parseDepositReference(text: string): ParsedDepositReference | undefined {
  // ASCII only before upper-casing: 'ſ'.toUpperCase() is 'S', and no bank writes a reference that way.
  if (typeof text !== 'string' || text.length > 200 || !/^[A-Za-z0-9\s-]*$/.test(text)) return undefined;
  // Stryker disable next-line Regex: equivalent, a global replace of each separator and of each run of them leave the same
  const reference = text.replace(/[\s-]+/g, '').toUpperCase();
  if (reference.length !== referenceLength || !reference.startsWith(referencePrefix)) return undefined;
  if (fold(reference) !== 0) return undefined;
  const ulid = reference.slice(referencePrefix.length, -1);
  if (!isUlid(ulid)) return undefined;
  return { reference, organizationId: `${organizationPrefix}${ulid}` };
}
