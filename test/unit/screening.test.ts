import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import unhomoglyph from 'unhomoglyph';
import confusables from 'unhomoglyph/data.json' with { type: 'json' };
import { maskAccount } from '#domain/accountMask.ts';
import { everyCharacter, foldedThroughConfusables } from '../../lib/build/lookAlikes.ts';
import { blockedAddresses, foldedWords, screen, screenAddress, screenBeneficiary, screeningList, type ScreenedParty } from '#domain/screening.ts';

const parties: ScreenedParty[] = ['originator', 'beneficiary', 'recipientReference'];

function asParty(party: ScreenedParty, text: string) {
  if (party === 'originator') return { originatorName: text, recipientReference: 'invoice 42' };
  if (party === 'beneficiary') return { beneficiaryName: text, recipientReference: 'invoice 42' };
  return { recipientReference: text };
}

/** Words that are in no list entry, for clean names and for context around a listed name. */
const cleanWords = ['ana', 'maría', 'lópez', 'joão', 'pereira', 'invoice', '42', 'rent', 'acme', 'sa', 'de', 'cv', 'payroll', 'nguyễn', 'văn', 'an', 'müller', 'o', 'brien'];
const separator = fc.string({ unit: fc.constantFrom(' ', '  ', '-', '.', ',', '\t', '\n', '/', '_', "'", '(', ')', '&', '#', ':', '·', '—', '\u00A0', '\u3000'), minLength: 1, maxLength: 3 });
const combiningMark = fc.constantFrom('\u0300', '\u0301', '\u0302', '\u0303', '\u0308', '\u030C', '\u0327', '\u0328');

/** A word disguised: random case per letter and random accents, which the comparison ignores. */
function disguisedWord(word: string) {
  return fc
    .tuple(fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }), fc.array(fc.option(combiningMark, { nil: '' }), { minLength: word.length, maxLength: word.length }))
    .map(([upper, marks]) =>
      word
        .split('')
        .map((ch, i) => (upper[i] ? ch.toUpperCase() : ch) + marks[i])
        .join('')
        .normalize(upper[0] ? 'NFC' : 'NFD'),
    );
}

function joined(words: readonly string[], separators: readonly string[]): string {
  return words.map((word, i) => (i === 0 ? word : `${separators[i - 1] ?? ' '}${word}`)).join('');
}

const context = fc.array(fc.constantFrom(...cleanWords), { maxLength: 3 });

/** A list entry as someone might write it, in clean context: case, accents, punctuation and spacing varied. */
const disguisedEntry = fc.constantFrom(...screeningList).chain((entry) => {
  const words = entry.split(' ');
  return fc
    .record({
      words: fc.tuple(...words.map(disguisedWord)),
      separators: fc.array(separator, { minLength: words.length + 6, maxLength: words.length + 6 }),
      before: context,
      after: context,
      lead: fc.constantFrom('', ' ', '"', '('),
    })
    .map(({ words: disguised, separators, before, after, lead }) => ({
      entry,
      text: lead + joined([...before, ...disguised, ...after], separators),
    }));
});

describe('screen', () => {
  it('hits whatever the case, accents, punctuation or spacing', () => {
    expect(screen({ originatorName: 'IVAN  dragomír-petrov', recipientReference: 'x' })).toStrictEqual({ party: 'originator', entry: 'ivan dragomir petrov' });
    expect(screen({ beneficiaryName: 'Ivan Dragomir-Petrov', recipientReference: 'x' })).toStrictEqual({ party: 'beneficiary', entry: 'ivan dragomir petrov' });
    expect(screen({ recipientReference: 'Invoice 7 — for BLOCKED_PERSON.' })).toStrictEqual({ party: 'recipientReference', entry: 'blocked person' });
    expect(screen({ beneficiaryName: 'Sanctioned Holdings, Ltd.', recipientReference: 'x' })?.entry).toBe('sanctioned holdings ltd');
    expect(screen({ beneficiaryName: 'NORTHWIND SHELL COMPANY', recipientReference: 'x' })?.entry).toBe('northwind shell company');
    expect(screen({ beneficiaryName: 'Mara\u00A0Volková', recipientReference: 'x' })?.entry).toBe('mara volkova');
    expect(screen({ beneficiaryName: 'ＭＡＲＡ ＶＯＬＫＯＶＡ', recipientReference: 'x' })?.entry).toBe('mara volkova'); // fullwidth
    expect(screen({ beneficiaryName: 'Mr. Ivan Dragomir Petrov Jr.', recipientReference: 'x' })?.party).toBe('beneficiary');
  });

  it('hits a listed name disguised by case, accents, punctuation and spacing, in any party', () => {
    fc.assert(
      fc.property(disguisedEntry, fc.constantFrom(...parties), ({ entry, text }, party) => {
        expect(screen(asParty(party, text)), JSON.stringify(text)).toStrictEqual({ party, entry });
      }),
    );
  });

  it('does not see a name through invisible characters inside its words', () => {
    // A soft hyphen or a zero-width joiner renders as nothing: the name reads "Ivan Dragomir Petrov".
    expect(screen({ beneficiaryName: 'Ivan Dra\u00ADgomir Petrov', recipientReference: 'x' })?.entry).toBe('ivan dragomir petrov');
    expect(screen({ beneficiaryName: 'Mara Vol\u200Dkova', recipientReference: 'x' })?.entry).toBe('mara volkova');
    expect(screen({ beneficiaryName: '\uFEFFBlocked\u2060 Person', recipientReference: 'x' })?.entry).toBe('blocked person');
    expect(screen({ beneficiaryName: 'Blocked Per\u200Bson', recipientReference: 'x' })?.entry).toBe('blocked person');
  });

  it('matches whole words only, in order', () => {
    for (const text of [
      'Ivana Dragomir Petrova',
      'Ivan Dragomir Petrova',
      'Ivan Dragomirov Petrov',
      'Ivan Dragomir',
      'Petrov Ivan Dragomir',
      'Ivan Petrov',
      'IvanDragomir Petrov',
      'Unblocked Person',
      'Blocked Personnel',
      'Person Blocked',
      'Sanctioned Holdings Limited',
      'Northwind Shell Co',
      'Tamara Volkova',
    ]) {
      for (const party of parties) expect(screen(asParty(party, text)), `${party}: ${text}`).toBeUndefined();
    }
  });

  it('does not hit when a letter is glued to any word of a listed name', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...screeningList),
        fc.nat(),
        // Latin letters and digits, and letters of other scripts that read as none: each is part of the word.
        fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzé0123456789жλ中ش'.split('')),
        fc.boolean(),
        fc.constantFrom(...parties),
        (entry, pick, letter, atEnd, party) => {
          const words = entry.split(' ');
          const i = pick % words.length;
          words[i] = atEnd ? words[i] + letter : letter + words[i];
          expect(screen(asParty(party, words.join(' ')))).toBeUndefined();
        },
      ),
    );
  });

  it('screens every party, reporting the first that hits (originator, beneficiary, reference)', () => {
    const listed = 'Blocked Person';
    expect(screen({ originatorName: listed, beneficiaryName: 'Mara Volkova', recipientReference: 'Ivan Dragomir Petrov' })).toStrictEqual({ party: 'originator', entry: 'blocked person' });
    expect(screen({ originatorName: 'Ana López', beneficiaryName: 'Mara Volkova', recipientReference: 'Ivan Dragomir Petrov' })).toStrictEqual({ party: 'beneficiary', entry: 'mara volkova' });
    expect(screen({ originatorName: 'Ana López', beneficiaryName: 'João Pereira', recipientReference: 'Ivan Dragomir Petrov' })).toStrictEqual({ party: 'recipientReference', entry: 'ivan dragomir petrov' });
    expect(screen({ originatorName: undefined, beneficiaryName: undefined, recipientReference: listed })?.party).toBe('recipientReference');
    expect(screen({ originatorName: '', beneficiaryName: '', recipientReference: listed })?.party).toBe('recipientReference');
  });

  it('finds no hit for clean names', () => {
    expect(screen({ originatorName: 'Ana María López', beneficiaryName: 'Nguyễn Văn An', recipientReference: 'Invoice 42' })).toBeUndefined();
    expect(screen({ recipientReference: '' })).toBeUndefined();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...cleanWords), { maxLength: 6 }), fc.array(separator, { minLength: 6, maxLength: 6 }), fc.constantFrom(...parties), (words, separators, party) => {
        expect(screen(asParty(party, joined(words, separators)))).toBeUndefined();
      }),
    );
  });

  it('finds no hit in random text that contains no listed word', () => {
    const firstWords = screeningList.map((entry) => entry.split(' ')[0]!);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ maxLength: 60 }), (a, b) => {
        for (const text of [a, b]) {
          const folded = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
          fc.pre(!firstWords.some((word) => folded.includes(word)));
          expect(screen({ originatorName: text, beneficiaryName: text, recipientReference: text })).toBeUndefined();
        }
      }),
    );
  });
});

/**
 * Characters that look like a letter written in a given case: the letter, and every character
 * Unicode's confusables.txt gives the same prototype (the data of `unhomoglyph`, which the
 * screening folds with). "m" also reads as "rn", "I" as "l", "1" or "|".
 */
const lookAlikesOf = new Map<string, string[]>();
function lookAlikes(letter: string): string[] {
  const prototype = unhomoglyph(letter);
  const table = confusables as Record<string, string>;
  if (!lookAlikesOf.has(letter)) {
    lookAlikesOf.set(letter, [letter, ...(prototype === letter ? [] : [prototype]), ...Object.keys(table).filter((ch) => table[ch] === prototype)]);
  }
  return lookAlikesOf.get(letter)!;
}
const invisible = fc.constantFrom('\u200B', '\u200C', '\u200D', '\u00AD', '\u2060', '\uFEFF');

/** A letter as someone might disguise it: either case, then any look-alike of that, accents, invisible characters around it. */
function lookAlikeLetter(letter: string) {
  return fc
    .record({
      upper: fc.boolean(),
      pick: fc.nat(),
      mark: fc.option(combiningMark, { nil: '' }),
      hidden: fc.option(invisible, { nil: '' }),
    })
    .map(({ upper, pick, mark, hidden }) => {
      const options = lookAlikes(upper ? letter.toUpperCase() : letter);
      return hidden + options[pick % options.length]! + mark;
    });
}

function lookAlikeWord(word: string) {
  return fc.tuple(...word.split('').map(lookAlikeLetter)).map((letters) => letters.join(''));
}

/** A listed name with any of its letters swapped for look-alikes, in clean context. */
const lookAlikeEntry = fc.constantFrom(...screeningList).chain((entry) => {
  const words = entry.split(' ');
  return fc
    .record({ words: fc.tuple(...words.map(lookAlikeWord)), separators: fc.array(separator, { minLength: words.length + 6, maxLength: words.length + 6 }), before: context, after: context })
    .map(({ words: disguised, separators, before, after }) => ({ entry, text: joined([...before, ...disguised, ...after], separators) }));
});

describe('screen: look-alike letters (TR39 skeletons, decision 078)', () => {
  it('hits the worked examples', () => {
    expect(screen({ beneficiaryName: 'Iv\u0430n Dragomir Petrov', recipientReference: 'x' })?.entry).toBe('ivan dragomir petrov'); // Cyrillic а
    expect(screen({ beneficiaryName: 'IVAN DRAGO\u041cIR PETROV', recipientReference: 'x' })?.entry).toBe('ivan dragomir petrov'); // Cyrillic М
    expect(screen({ beneficiaryName: 'i\u03bdan dragornir petr0v', recipientReference: 'x' })?.entry).toBe('ivan dragomir petrov'); // Greek ν, "rn", zero
    expect(screen({ originatorName: 'B1ocked Pers\u043en', recipientReference: 'x' })?.party).toBe('originator'); // one, Cyrillic о
    expect(screen({ recipientReference: 'to \u0405\u0430nctioned \u041dоldings \u217cTD' })?.party).toBe('recipientReference'); // Ѕ, Н, ⅼ
    expect(screen({ beneficiaryName: '\u{1D40C}\u{1D41A}\u{1D42B}\u{1D41A} \u{1D415}\u{1D428}\u{1D425}\u{1D424}\u{1D428}\u{1D42F}\u{1D41A}', recipientReference: 'x' })?.entry).toBe('mara volkova'); // mathematical bold
    expect(screen({ beneficiaryName: 'N\u043erth\u051dind Sh\u0435ll C\u043emp\u0430ny', recipientReference: 'x' })?.entry).toBe('northwind shell company');
    // ɨ's skeleton is "i" with a combining stroke: the mark is dropped from the skeleton too.
    expect(screen({ beneficiaryName: '\u0268van Dragomir Petrov', recipientReference: 'x' })?.entry).toBe('ivan dragomir petrov');
  });

  it('hits a listed name whatever letters are swapped for look-alikes, in any case, with accents and invisible characters, in any party', () => {
    fc.assert(
      fc.property(lookAlikeEntry, fc.constantFrom(...parties), ({ entry, text }, party) => {
        expect(screen(asParty(party, text)), JSON.stringify(text)).toStrictEqual({ party, entry });
      }),
      { numRuns: 300 },
    );
  });

  it('does not hit when one letter of a listed name is swapped for a look-alike of another letter', () => {
    const letters = 'abcdefghjkmnopqrstuvwxyz'.split(''); // no "i"/"l": they read alike
    fc.assert(
      fc.property(fc.constantFrom(...screeningList), fc.nat(), fc.constantFrom(...letters), fc.constantFrom(...parties), (entry, pick, letter, party) => {
        const positions = [...entry].flatMap((ch, i) => (ch === ' ' || ch === letter ? [] : [i]));
        fc.pre(positions.length > 0);
        const at = positions[pick % positions.length]!;
        const options = lookAlikes(letter);
        const text = entry.slice(0, at) + options[pick % options.length]! + entry.slice(at + 1);
        expect(screen(asParty(party, text)), JSON.stringify(text)).toBeUndefined();
      }),
    );
  });

  it('does not read punctuation that a skeleton turns into a letter as gluing words', () => {
    expect(screen({ beneficiaryName: 'Blocked\u2014Person', recipientReference: 'x' })?.entry).toBe('blocked person'); // — has the skeleton ー
    expect(screen({ beneficiaryName: 'Mara\u00B7Volkova', recipientReference: 'x' })?.entry).toBe('mara volkova');
  });
});

describe('screenBeneficiary and screenAddress', () => {
  it('screens an off-ramp beneficiary name with the same folding as a payment', () => {
    expect(screenBeneficiary('Iv\u0430n Dragomir Petrov')).toStrictEqual({ party: 'beneficiary', entry: 'ivan dragomir petrov' });
    expect(screenBeneficiary('SANCTIONED HOLDINGS, LTD.')).toStrictEqual({ party: 'beneficiary', entry: 'sanctioned holdings ltd' });
    expect(screenBeneficiary('Müller Feinmechanik GmbH')).toBeUndefined();
    fc.assert(
      fc.property(lookAlikeEntry, ({ entry, text }) => {
        expect(screenBeneficiary(text)).toStrictEqual({ party: 'beneficiary', entry });
        expect(screen({ beneficiaryName: text, recipientReference: 'x' })).toStrictEqual({ party: 'beneficiary', entry });
      }),
    );
  });

  it('blocks the listed addresses in any case, and no other', () => {
    for (const address of blockedAddresses) {
      expect(address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(screenAddress(address)).toStrictEqual({ party: 'destinationAddress', entry: address });
      expect(screenAddress(address.toUpperCase().replace('0X', '0x'))?.entry).toBe(address);
    }
    fc.assert(
      fc.property(fc.stringMatching(/^0x[0-9a-fA-F]{40}$/), (address) => {
        fc.pre(!blockedAddresses.includes(address.toLowerCase()));
        expect(screenAddress(address)).toBeUndefined();
      }),
    );
  });
});

describe('maskAccount', () => {
  it('masks worked examples', () => {
    expect(maskAccount('032180000118359719')).toBe('**************9719');
    expect(maskAccount('31926819')).toBe('****6819');
    expect(maskAccount('1234567')).toBe('*******');
    expect(maskAccount('123')).toBe('****');
    expect(maskAccount('')).toBe('****');
    expect(maskAccount('DE89370400440532013000')).toBe('******************3000');
  });

  it('reveals at most the last 4 characters of an account of 8 or more', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 8, maxLength: 140 }), (account) => {
        const masked = maskAccount(account);
        expect(masked).toHaveLength(account.length);
        expect(masked.slice(-4)).toBe(account.slice(-4));
        expect(masked.slice(0, -4)).toMatch(/^\*+$/);
      }),
    );
  });

  it('reveals nothing of an account shorter than 8, not even its exact length below 4', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 7 }), (account) => {
        fc.pre(account.length < 8); // UTF-16 length: an astral character counts two
        const masked = maskAccount(account);
        expect(masked).toMatch(/^\*{4,7}$/);
        expect(masked).toBe('*'.repeat(Math.max(4, account.length)));
      }),
    );
  });

  it('depends only on the length and the last four characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), (a, b) => {
        fc.pre(a.length === b.length);
        const visibleSame = a.length < 8 || a.slice(-4) === b.slice(-4);
        if (visibleSame) expect(maskAccount(a)).toBe(maskAccount(b));
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 8, maxLength: 40 }), fc.string({ unit: 'binary', minLength: 4, maxLength: 4 }), (account, other) => {
        const swapped = account.slice(0, -4) + other;
        fc.pre(swapped.length === account.length);
        expect(maskAccount(swapped).slice(0, -4)).toBe(maskAccount(account).slice(0, -4));
      }),
    );
  });

  it('never contains the full account (unless the account is nothing but what the mask shows anyway)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 140 }), (account) => {
        // An account of '*'s in its hidden part reads the same masked: nothing is revealed there.
        const hidden = account.length >= 8 ? account.slice(0, -4) : account;
        fc.pre(/[^*]/u.test(hidden));
        expect(maskAccount(account).includes(account)).toBe(false);
      }),
    );
    for (const account of ['12345678', '0123456785', 'DE89370400440532013000', '1234', 'a']) expect(maskAccount(account).includes(account)).toBe(false);
  });
});

describe('screen: the generated look-alike table (decision 157)', () => {
  it('reads every code point as the whole confusables table does', () => {
    const differing: string[] = [];
    for (const ch of everyCharacter()) {
      if (foldedWords(ch) !== foldedWords(ch, foldedThroughConfusables)) differing.push(`U+${ch.codePointAt(0)!.toString(16)}`);
    }
    expect(differing, 'functions/domain/lookAlikes.ts is stale: npm run lookalikes:generate').toEqual([]);
  });
});
