import fc from 'fast-check';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import {
  checkCharacter, depositReferenceOf, parseDepositReference, referenceAlphabet, referenceLength, referencePrefix,
} from '#domain/depositReference.ts';

/** Organization ids as createOrganization makes them: `org_` + a ULID (first character 0-7). */
const organizationId = fc
  .tuple(fc.constantFrom(...referenceAlphabet.slice(0, 8)), fc.array(fc.constantFrom(...referenceAlphabet), { minLength: 25, maxLength: 25 }))
  .map(([first, rest]) => `org_${first}${rest.join('')}`);
const reference = organizationId.map(depositReferenceOf);

/** Every printable ASCII character that is not in the alphabet in either case, nor a separator parsing ignores. */
const outsiders = [...Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index))].filter(
  (character) => !referenceAlphabet.includes(character.toUpperCase()) && character !== ' ' && character !== '-',
);

const replaceAt = (text: string, index: number, character: string) => `${text.slice(0, index)}${character}${text.slice(index + 1)}`;

describe('the deposit reference', () => {
  it('is REF, the ULID of the organization and one check character, and parses back to the organization', () => {
    fc.assert(
      fc.property(organizationId, (id) => {
        const made = depositReferenceOf(id);
        expect(made).toHaveLength(referenceLength);
        expect(made).toBe(`${referencePrefix}${id.slice(4)}${checkCharacter(made.slice(0, -1))}`);
        expect(parseDepositReference(made)).toEqual({ reference: made, organizationId: id });
      }),
    );
  });

  it('is stable (a pure function of the id) and different for different organizations', () => {
    const id = `org_${ulid()}`;
    expect(depositReferenceOf(id)).toBe(depositReferenceOf(id));
    fc.assert(
      fc.property(organizationId, organizationId, (a, b) => {
        fc.pre(a !== b);
        expect(depositReferenceOf(a)).not.toBe(depositReferenceOf(b));
      }),
    );
  });

  // A reference is quoted on wires for ever: these are the references organizations were given.
  it('is the one the decision documents, for ever (053)', () => {
    expect(depositReferenceOf('org_01JDQ8V3ZK7M2A9X4B6C8D0E1F')).toBe('REF01JDQ8V3ZK7M2A9X4B6C8D0E1F4');
    expect(depositReferenceOf('org_7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBe('REF7ZZZZZZZZZZZZZZZZZZZZZZZZZP');
    expect(depositReferenceOf('org_00000000000000000000000000')).toBe('REF00000000000000000000000000T');
    expect(checkCharacter('REF01JDQ8V3ZK7M2A9X4B6C8D0E1F')).toBe('4');
    expect(() => checkCharacter('REF-1')).toThrow();
    expect(parseDepositReference('REF01JDQ8V3ZK7M2A9X4B6C8D0E1F4')).toEqual({ reference: 'REF01JDQ8V3ZK7M2A9X4B6C8D0E1F4', organizationId: 'org_01JDQ8V3ZK7M2A9X4B6C8D0E1F' });
  });

  it('is read from a text of at most 200 characters', () => {
    const made = 'REF01JDQ8V3ZK7M2A9X4B6C8D0E1F4';
    expect(parseDepositReference(made.padStart(200, ' '))?.reference).toBe(made);
    expect(parseDepositReference(made.padStart(201, ' '))).toBeUndefined();
    expect(parseDepositReference(`${made}\t`)?.reference).toBe(made);
    expect(parseDepositReference(`${made}_`)).toBeUndefined();
    expect(parseDepositReference(`x${made}`)).toBeUndefined();
    expect(parseDepositReference(42 as never)).toBeUndefined();
    // ASCII only: 'ſ' upper-cases to 'S', and still does not stand for it.
    expect(parseDepositReference('REF01JDQ8V3ZK7M2A9X4B6C8D0ESFB')?.organizationId).toBe('org_01JDQ8V3ZK7M2A9X4B6C8D0ESF');
    expect(parseDepositReference('REF01JDQ8V3ZK7M2A9X4B6C8D0ſFB')).toBeUndefined();
  });

  it('names a ULID: its first character is 0 to 7', () => {
    // A body of 8… with a matching check character is still not a reference.
    const body = 'REF81JDQ8V3ZK7M2A9X4B6C8D0E1F';
    expect(parseDepositReference(`${body}${checkCharacter(body)}`)).toBeUndefined();
    const seven = 'REF71JDQ8V3ZK7M2A9X4B6C8D0E1F';
    expect(parseDepositReference(`${seven}${checkCharacter(seven)}`)?.organizationId).toBe('org_71JDQ8V3ZK7M2A9X4B6C8D0E1F');
    const other = 'XYZ01JDQ8V3ZK7M2A9X4B6C8D0E1F';
    expect(parseDepositReference(`${other}${checkCharacter(other)}`)).toBeUndefined();
  });

  it('a real organization id of today makes a reference', () => {
    const id = `org_${ulid()}`;
    expect(parseDepositReference(depositReferenceOf(id))?.organizationId).toBe(id);
  });

  it('refuses ids that are not org_<ULID>', () => {
    for (const id of ['', 'org_', 'org_01JDQ8V3ZK7M2A9X4B6C8D0E1', 'org_81JDQ8V3ZK7M2A9X4B6C8D0E1F', 'org_01JDQ8V3ZK7M2A9X4B6C8D0EIF', 'acme_01JDQ8V3ZK7M2A9X4B6C8D0E1F']) {
      expect(() => depositReferenceOf(id), id).toThrow();
    }
  });

  it('ignores letter case, spaces and hyphens, as a bank may write it', () => {
    fc.assert(
      fc.property(reference, (made) => {
        const expected = parseDepositReference(made);
        expect(parseDepositReference(made.toLowerCase())).toEqual(expected);
        expect(parseDepositReference(` ${made.slice(0, 3)}-${made.slice(3, 10)} ${made.slice(10, 20)}\n${made.slice(20)} `)).toEqual(expected);
      }),
    );
  });
});

describe('a mangled reference matches nothing', () => {
  it('every single-character change to another character of the alphabet is detected, the check character included', () => {
    fc.assert(
      fc.property(reference, (made) => {
        const accepted: string[] = [];
        for (let index = 0; index < made.length; index += 1) {
          for (const character of referenceAlphabet) {
            if (character === made[index]) continue;
            const changed = replaceAt(made, index, character);
            if (parseDepositReference(changed) || parseDepositReference(changed.toLowerCase())) accepted.push(changed);
          }
        }
        expect(accepted).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('every single-character change to a character outside the alphabet is refused (I, L, O, U are not guessed)', () => {
    fc.assert(
      fc.property(reference, fc.nat(), fc.constantFrom(...outsiders, 'ſ', 'İ', 'Ⅰ', '０'), (made, at, character) => {
        const changed = replaceAt(made, at % made.length, character);
        expect(parseDepositReference(changed), changed).toBeUndefined();
      }),
    );
    const made = depositReferenceOf('org_01JDQ8V3ZK7M2A9X4B6C8D0E1F');
    expect(parseDepositReference(made.replace('0', 'O'))).toBeUndefined();
    expect(parseDepositReference(made.replace('1', 'I'))).toBeUndefined();
    expect(parseDepositReference(made.replace('1', 'L'))).toBeUndefined();
  });

  it('every adjacent transposition of two different characters is detected', () => {
    fc.assert(
      fc.property(reference, (made) => {
        const accepted: string[] = [];
        for (let index = 0; index + 1 < made.length; index += 1) {
          if (made[index] === made[index + 1]) continue;
          const swapped = `${made.slice(0, index)}${made[index + 1]}${made[index]}${made.slice(index + 2)}`;
          if (parseDepositReference(swapped)) accepted.push(swapped);
        }
        expect(accepted).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('every jump transposition (abc → cba) is detected too', () => {
    fc.assert(
      fc.property(reference, (made) => {
        const accepted: string[] = [];
        for (let index = 0; index + 2 < made.length; index += 1) {
          if (made[index] === made[index + 2]) continue;
          const swapped = `${made.slice(0, index)}${made[index + 2]}${made[index + 1]}${made[index]}${made.slice(index + 3)}`;
          if (parseDepositReference(swapped)) accepted.push(swapped);
        }
        expect(accepted).toEqual([]);
      }),
    );
  });

  it('a missing, added or doubled character is refused', () => {
    fc.assert(
      fc.property(reference, fc.nat(), fc.constantFrom(...referenceAlphabet), (made, at, character) => {
        const index = at % made.length;
        expect(parseDepositReference(`${made.slice(0, index)}${made.slice(index + 1)}`)).toBeUndefined();
        expect(parseDepositReference(`${made.slice(0, index)}${character}${made.slice(index)}`)).toBeUndefined();
      }),
    );
  });

  it('missing or unrelated text is refused', () => {
    for (const text of ['', ' ', 'REF', 'INVOICE 2024-113', `REF${'0'.repeat(27)}`, 'x'.repeat(10_000)]) {
      expect(parseDepositReference(text), text.slice(0, 40)).toBeUndefined();
    }
    // One check character: a random string of the right shape passes about once in 32, no more.
    let passed = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...referenceAlphabet), { minLength: 27, maxLength: 27 }), (characters) => {
        const text = `REF0${characters.join('').slice(1)}`;
        if (parseDepositReference(text)) passed += 1;
      }),
      { numRuns: 3200 },
    );
    expect(passed).toBeLessThan(200);
  });
});
