import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AmountError,
  basisPoints,
  convertFloor,
  currencyScales,
  floorToWholeUnits,
  formatDecimal,
  fraction,
  isWithinLargestAmount,
  largestAmountAt,
  largestWholeUnits,
  fractionOf,
  money,
  multiply,
  parseDecimal,
  rateJson,
  scaleOf,
  type Fraction,
} from '#domain/money.ts';

const scales = [...new Set(Object.values(currencyScales))].sort();
const anyScale = fc.constantFrom(...scales);
const anyCurrency = fc.constantFrom(...Object.keys(currencyScales));
/** Non-negative amounts up to ~40 digits, with small ones well represented. */
const amount = fc.oneof(fc.bigInt({ min: 0n, max: 1_000n }), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 40n }));
/** The largest amount, in minor units at `scale`, by its definition: a billion whole units (docs/decisions/072). */
const billionAt = (scale: number) => 1_000_000_000n * 10n ** BigInt(scale);
/** A scale and an amount a request may carry at it (up to the largest, with the edges well represented). */
const acceptedAtScale = anyScale.chain((scale) =>
  fc.tuple(fc.constant(scale), fc.oneof(fc.bigInt({ min: 0n, max: 1_000n }), fc.bigInt({ min: 0n, max: billionAt(scale) }), fc.bigInt({ min: billionAt(scale) - 1_000n, max: billionAt(scale) }))),
);
/** The value of a decimal string, as a fraction over 10^decimals, checked against the bound independently of the code. */
const withinByModel = (text: string) => {
  const [whole, frac = ''] = text.split('.');
  return BigInt(whole!) * 10n ** BigInt(frac.length) + BigInt(frac || '0') <= 1_000_000_000n * 10n ** BigInt(frac.length);
};
const positive = fc.bigInt({ min: 1n, max: 10n ** 20n });
const anyFraction = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 18n }), positive).map(([n, d]) => fraction(n, d));

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/** Same rational value, by cross-multiplication. */
function sameValue(a: Fraction, b: Fraction): boolean {
  return a.numerator * b.denominator === b.numerator * a.denominator;
}

describe('currency scales', () => {
  it('has the DESIGN.md scales', () => {
    expect(currencyScales).toMatchObject({ USDC: 6, EURC: 6, USD: 2, EUR: 2, MXN: 2, VND: 0 });
    expect(scaleOf('USDC')).toBe(6);
    expect(scaleOf('VND')).toBe(0);
  });

  it('knows nothing of unknown codes, lowercase codes or Object.prototype names', () => {
    for (const code of ['XYZ', 'usdc', '', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) expect(scaleOf(code)).toBeUndefined();
  });
});

describe('parseDecimal / formatDecimal', () => {
  it('round trips every amount up to the largest at every scale in the table', () => {
    fc.assert(
      fc.property(acceptedAtScale, ([scale, minor]) => {
        const text = formatDecimal(minor, scale);
        expect(parseDecimal(text, scale)).toBe(minor);
        // The formatted text is canonical: exactly `scale` decimals, and no leading zeros but one.
        expect(text).toMatch(scale === 0 ? /^(0|[1-9]\d*)$/ : new RegExp(`^(0|[1-9]\\d*)\\.\\d{${scale}}$`));
      }),
    );
  });

  it('round trips through each currency named in the table', () => {
    fc.assert(
      fc.property(amount, anyCurrency, (minor, currency) => {
        const scale = scaleOf(currency)!;
        const bounded = minor % (billionAt(scale) + 1n);
        expect(parseDecimal(formatDecimal(bounded, scale), scale)).toBe(bounded);
      }),
    );
  });

  it('parses a decimal string to exactly whole·10^scale + padded fraction', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,45}$/), fc.stringMatching(/^\d{0,6}$/), anyScale, (whole, frac, scale) => {
        const text = frac === '' ? whole : `${whole}.${frac}`;
        if (frac.length > scale) {
          expect(() => parseDecimal(text, scale)).toThrow(AmountError);
          return;
        }
        const expected = BigInt(whole) * 10n ** BigInt(scale) + (frac === '' ? 0n : BigInt(frac) * 10n ** BigInt(scale - frac.length));
        if (expected > billionAt(scale)) {
          expect(() => parseDecimal(text, scale)).toThrow(/at most 1000000000/);
          return;
        }
        expect(parseDecimal(text, scale)).toBe(expected);
      }),
    );
  });

  it('refuses more decimals than the scale, never rounding (even trailing zeros)', () => {
    expect(() => parseDecimal('1.005', 2)).toThrow(AmountError);
    expect(() => parseDecimal('1.500', 2)).toThrow(/at most 2 decimals/);
    expect(() => parseDecimal('0.0000001', 6)).toThrow(AmountError);
    expect(() => parseDecimal('1.0', 0)).toThrow(/whole number/);
    expect(() => parseDecimal('25412.5', 0)).toThrow(AmountError);
    fc.assert(
      fc.property(amount, anyScale, fc.integer({ min: 1, max: 4 }), fc.stringMatching(/^\d{4}$/), (minor, scale, extra, digits) => {
        const formatted = formatDecimal(minor, scale);
        const text = (scale === 0 ? `${formatted}.` : formatted) + digits.slice(0, extra);
        expect(() => parseDecimal(text, scale)).toThrow(AmountError);
      }),
    );
  });

  it('refuses signs, exponents, spaces, empty, bare points and other spellings', () => {
    const refused = [
      '',
      ' ',
      '-1',
      '+1',
      '-0',
      '1e3',
      '1E3',
      '1.5e2',
      ' 1',
      '1 ',
      '1 000',
      '1\n',
      '\t1',
      '.5',
      '5.',
      '.',
      '1..5',
      '1.2.3',
      '1,5',
      '1_000',
      '0x10',
      '0b1',
      'Infinity',
      'NaN',
      '١٢', // Arabic-Indic digits
      '１２', // fullwidth digits
      '12abc',
    ];
    for (const text of refused) for (const scale of scales) expect(() => parseDecimal(text, scale), JSON.stringify(text)).toThrow(AmountError);
  });

  it('accepts exactly the strings of the form digits[.digits] within the scale', () => {
    const shape = /^[0-9]+(?:\.[0-9]+)?$/;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.-+eE ,_x\t'.split('')), maxLength: 12 }), anyScale, (text, scale) => {
        const decimals = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
        const accepted = shape.test(text) && decimals <= scale && withinByModel(text);
        if (accepted) expect(typeof parseDecimal(text, scale)).toBe('bigint');
        else expect(() => parseDecimal(text, scale)).toThrow(AmountError);
      }),
    );
  });

  it('treats zero padding as the same amount ("1.5" == "1.50" at scale 2)', () => {
    expect(parseDecimal('1.5', 2)).toBe(150n);
    expect(parseDecimal('1.50', 2)).toBe(150n);
    expect(parseDecimal('1', 2)).toBe(150n - 50n);
    expect(parseDecimal('001.5', 2)).toBe(150n);
    fc.assert(
      fc.property(fc.stringMatching(/^0{0,12}\d{1,9}$/), fc.stringMatching(/^\d{0,6}$/), anyScale, fc.nat(6), (whole, frac, scale, pad) => {
        fc.pre(frac.length + pad <= scale);
        const short = frac === '' ? whole : `${whole}.${frac}`;
        const padded = frac === '' && pad === 0 ? whole : `${whole}.${frac}${'0'.repeat(pad)}`;
        expect(parseDecimal(padded, scale)).toBe(parseDecimal(short, scale));
      }),
    );
  });

  it('accepts at most a billion whole units, exactly, at every scale and in every spelling', () => {
    expect(largestWholeUnits).toBe(1_000_000_000n);
    for (const scale of scales) {
      expect(largestAmountAt(scale)).toBe(billionAt(scale));
      expect(parseDecimal('1000000000', scale)).toBe(billionAt(scale));
      expect(parseDecimal('0001000000000', scale)).toBe(billionAt(scale));
      if (scale > 0) expect(parseDecimal(`1000000000.${'0'.repeat(scale)}`, scale)).toBe(billionAt(scale));
      expect(parseDecimal(formatDecimal(billionAt(scale) - 1n, scale), scale)).toBe(billionAt(scale) - 1n);
      for (const text of [formatDecimal(billionAt(scale) + 1n, scale), '1000000001', `1${'0'.repeat(32)}`, '9'.repeat(40)]) {
        expect(() => parseDecimal(text, scale), `${text} at ${scale}`).toThrow(/at most 1000000000/);
      }
    }
  });

  it('tells within from beyond on a megabyte of digits by counting them (no million-digit BigInt per request)', () => {
    expect(isWithinLargestAmount(`1${'0'.repeat(1_000_000)}`)).toBe(false);
    expect(isWithinLargestAmount(`${'0'.repeat(1_000_000)}1000000000.${'0'.repeat(1_000)}`)).toBe(true);
    expect(isWithinLargestAmount(`${'0'.repeat(1_000_000)}1000000000.${'0'.repeat(1_000)}1`)).toBe(false);
  });

  it('tells within from beyond on the string alone, as parsing at any scale does', () => {
    fc.assert(
      fc.property(amount, anyScale, (minor, scale) => {
        const text = formatDecimal(minor, scale);
        expect(isWithinLargestAmount(text)).toBe(minor <= billionAt(scale));
        expect(isWithinLargestAmount(text)).toBe(withinByModel(text));
        if (minor > billionAt(scale)) expect(() => parseDecimal(text, scale)).toThrow(AmountError);
      }),
    );
  });

  it('formats huge values exactly (40 digits and more)', () => {
    const whole = '1234567890123456789012345678901234567890';
    expect(formatDecimal(1234567890123456789012345678901234567890123456n, 6)).toBe(`${whole}.123456`);
    expect(formatDecimal(10n ** 42n - 1n, 2)).toBe('9'.repeat(40) + '.99');
  });

  it('formats worked examples, including sub-unit and negative amounts', () => {
    expect(formatDecimal(1250n, 2)).toBe('12.50');
    expect(formatDecimal(5n, 2)).toBe('0.05');
    expect(formatDecimal(0n, 6)).toBe('0.000000');
    expect(formatDecimal(1n, 6)).toBe('0.000001');
    expect(formatDecimal(2_541_200n, 0)).toBe('2541200');
    expect(formatDecimal(-5n, 2)).toBe('-0.05');
    expect(formatDecimal(-123_456_789n, 6)).toBe('-123.456789');
    expect(parseDecimal('12.5', 2)).toBe(1250n);
    expect(parseDecimal('0', 6)).toBe(0n);
    expect(parseDecimal('100.000001', 6)).toBe(100_000_001n);
  });

  it('formats a negative amount as minus the positive one', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), anyScale, (minor, scale) => {
        expect(formatDecimal(-minor, scale)).toBe(`-${formatDecimal(minor, scale)}`);
      }),
    );
  });
});

describe('money', () => {
  it('gives {amount: string, currency, scale} for every known currency', () => {
    fc.assert(
      fc.property(amount, anyCurrency, (minor, currency) => {
        const m = money(minor, currency);
        expect(m).toStrictEqual({ amount: minor.toString(), currency, scale: currencyScales[currency] });
        expect(typeof m.amount).toBe('string');
        expect(BigInt(m.amount)).toBe(minor);
      }),
    );
    expect(money(1250n, 'MXN')).toStrictEqual({ amount: '1250', currency: 'MXN', scale: 2 });
    expect(money(10n ** 40n, 'USDC').amount).toBe('1' + '0'.repeat(40));
  });

  it('refuses unknown currencies', () => {
    for (const code of ['XYZ', 'usdc', 'US', '', 'toString', '__proto__', 'constructor']) expect(() => money(1n, code), code).toThrow(AmountError);
    fc.assert(
      fc.property(fc.string(), (code) => {
        fc.pre(!Object.hasOwn(currencyScales, code));
        expect(() => money(0n, code)).toThrow(AmountError);
      }),
    );
  });
});

describe('fraction', () => {
  it('is reduced (gcd 1), has a positive denominator and keeps the value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 30n }), (n, d) => {
        const f = fraction(n, d);
        expect(f.denominator > 0n).toBe(true);
        expect(f.numerator >= 0n).toBe(true);
        expect(gcd(f.numerator, f.denominator)).toBe(1n);
        expect(f.numerator * d).toBe(n * f.denominator);
        // Reducing a reduced form changes nothing.
        expect(fraction(f.numerator, f.denominator)).toStrictEqual(f);
      }),
    );
  });

  it('gives one form per value: scaling numerator and denominator alike changes nothing', () => {
    fc.assert(
      fc.property(anyFraction, fc.bigInt({ min: 1n, max: 10n ** 12n }), (f, k) => {
        expect(fraction(f.numerator * k, f.denominator * k)).toStrictEqual(f);
      }),
    );
  });

  it('writes zero as 0/1', () => {
    expect(fraction(0n, 7n)).toStrictEqual({ numerator: 0n, denominator: 1n });
    expect(fraction(6n, 4n)).toStrictEqual({ numerator: 3n, denominator: 2n });
  });

  it('refuses a zero or negative denominator and a negative numerator', () => {
    expect(() => fraction(1n, 0n)).toThrow(AmountError);
    expect(() => fraction(0n, 0n)).toThrow(AmountError);
    expect(() => fraction(1n, -2n)).toThrow(AmountError);
    expect(() => fraction(-1n, 2n)).toThrow(AmountError);
    expect(() => fraction(-1n, -2n)).toThrow(AmountError);
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.bigInt({ min: -(10n ** 20n), max: 0n }), (n, d) => {
        expect(() => fraction(n, d)).toThrow(AmountError);
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: -1n }), positive, (n, d) => {
        expect(() => fraction(n, d)).toThrow(AmountError);
      }),
    );
  });

  it('reads decimal rates exactly', () => {
    expect(fractionOf('17.0512')).toStrictEqual({ numerator: 10657n, denominator: 625n });
    expect(sameValue(fractionOf('17.0512'), { numerator: 170512n, denominator: 10000n })).toBe(true);
    expect(fractionOf('25412')).toStrictEqual({ numerator: 25412n, denominator: 1n });
    expect(fractionOf('0.9213')).toStrictEqual({ numerator: 9213n, denominator: 10000n });
    expect(fractionOf('1551.20')).toStrictEqual({ numerator: 7756n, denominator: 5n });
    expect(fractionOf('0.000000000000000000000000000001')).toStrictEqual({ numerator: 1n, denominator: 10n ** 30n });
    fc.assert(
      fc.property(amount, fc.integer({ min: 0, max: 12 }), (minor, scale) => {
        expect(fractionOf(formatDecimal(minor, scale))).toStrictEqual(fraction(minor, 10n ** BigInt(scale)));
      }),
    );
  });

  it('multiplies exactly, commutatively and associatively on reduced forms', () => {
    fc.assert(
      fc.property(anyFraction, anyFraction, anyFraction, (a, b, c) => {
        const ab = multiply(a, b);
        expect(ab.numerator * a.denominator * b.denominator).toBe(a.numerator * b.numerator * ab.denominator);
        expect(gcd(ab.numerator, ab.denominator)).toBe(1n);
        expect(ab).toStrictEqual(multiply(b, a));
        expect(multiply(ab, c)).toStrictEqual(multiply(a, multiply(b, c)));
        expect(multiply(a, fraction(1n, 1n))).toStrictEqual(a);
      }),
    );
    expect(multiply(fractionOf('18.4127'), fraction(9965n, 10_000n))).toStrictEqual({ numerator: 366965111n, denominator: 20000000n });
  });

  it('serializes a rate as strings', () => {
    expect(rateJson('USDC', 'MXN', fractionOf('18.4127'))).toStrictEqual({ from: 'USDC', to: 'MXN', numerator: '184127', denominator: '10000' });
    fc.assert(
      fc.property(anyFraction, (f) => {
        const json = rateJson('USDC', 'VND', f);
        expect({ numerator: BigInt(json.numerator), denominator: BigInt(json.denominator) }).toStrictEqual(f);
      }),
    );
  });
});

describe('convertFloor', () => {
  const rate = fc.oneof(
    anyFraction,
    // Plausible FX levels written as decimals (0.0001 .. 100000).
    fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.integer({ min: 0, max: 4 })).map(([n, places]) => fraction(n, 10n ** BigInt(places))),
  );

  it('floors: r ≤ x·rate·10^toScale/10^fromScale < r+1', () => {
    fc.assert(
      fc.property(amount, anyScale, rate, anyScale, (x, fromScale, f, toScale) => {
        const r = convertFloor(x, fromScale, f, toScale);
        const numerator = x * f.numerator * 10n ** BigInt(toScale);
        const denominator = f.denominator * 10n ** BigInt(fromScale);
        expect(r * denominator <= numerator).toBe(true);
        expect(numerator < (r + 1n) * denominator).toBe(true);
      }),
    );
  });

  it('is never negative, and converts 0 to 0', () => {
    fc.assert(
      fc.property(amount, anyScale, rate, anyScale, (x, fromScale, f, toScale) => {
        expect(convertFloor(x, fromScale, f, toScale) >= 0n).toBe(true);
        expect(convertFloor(0n, fromScale, f, toScale)).toBe(0n);
      }),
    );
  });

  it('is monotone in the amount', () => {
    fc.assert(
      fc.property(amount, amount, anyScale, rate, anyScale, (a, b, fromScale, f, toScale) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(convertFloor(low, fromScale, f, toScale) <= convertFloor(high, fromScale, f, toScale)).toBe(true);
      }),
    );
  });

  it('is monotone in the rate', () => {
    fc.assert(
      fc.property(amount, anyScale, rate, rate, anyScale, (x, fromScale, f, g, toScale) => {
        const [low, high] = f.numerator * g.denominator <= g.numerator * f.denominator ? [f, g] : [g, f];
        expect(convertFloor(x, fromScale, low, toScale) <= convertFloor(x, fromScale, high, toScale)).toBe(true);
      }),
    );
  });

  it('is the identity at rate 1 between equal scales, and exact when widening the scale', () => {
    const one = fraction(1n, 1n);
    fc.assert(
      fc.property(amount, anyScale, (x, scale) => {
        expect(convertFloor(x, scale, one, scale)).toBe(x);
        expect(convertFloor(x, 0, one, 6)).toBe(x * 1_000_000n);
        expect(convertFloor(x, 2, one, 6)).toBe(x * 10_000n);
        // Narrowing drops the sub-unit digits.
        expect(convertFloor(x, 6, one, 2)).toBe(x / 10_000n);
      }),
    );
  });

  it('never pays more after two conversions than after one at the product rate', () => {
    fc.assert(
      fc.property(amount, anyScale, rate, anyScale, rate, anyScale, (x, s1, f, s2, g, s3) => {
        const twice = convertFloor(convertFloor(x, s1, f, s2), s2, g, s3);
        expect(twice <= convertFloor(x, s1, multiply(f, g), s3)).toBe(true);
      }),
    );
  });

  it('converts USDC (6) to VND (0) and MXN (2) exactly', () => {
    const vnd = fractionOf('25412');
    expect(convertFloor(100_000_000n, 6, vnd, 0)).toBe(2_541_200n); // 100 USDC
    expect(convertFloor(1_500_000n, 6, vnd, 0)).toBe(38_118n); // 1.5 USDC
    expect(convertFloor(96_800_000n, 6, vnd, 0)).toBe(2_459_881n); // 96.8 × 25412 = 2 459 881.6
    expect(convertFloor(1n, 6, vnd, 0)).toBe(0n); // 0.025412 VND
    expect(convertFloor(40n, 6, vnd, 0)).toBe(1n); // 1.01648 VND
    expect(convertFloor(39n, 6, vnd, 0)).toBe(0n); // 0.991068 VND
    expect(convertFloor(1_000_000n, 6, fractionOf('25412.5'), 0)).toBe(25_412n);
    expect(convertFloor(98_500_000n, 6, fractionOf('18.4127'), 2)).toBe(181_365n); // 1813.650950 MXN
    expect(convertFloor(1_000_000n, 6, fractionOf('0.9213'), 2)).toBe(92n); // 0.9213 EUR
    expect(convertFloor(10n ** 40n, 6, fractionOf('25412'), 0)).toBe(25412n * 10n ** 34n);
  });

  it('refuses a negative amount', () => {
    expect(() => convertFloor(-1n, 6, fraction(1n, 1n), 6)).toThrow(AmountError);
  });
});

describe('floorToWholeUnits', () => {
  it('floors to whole units of the currency, written at its scale: a multiple of 10^scale, less than one unit below', () => {
    fc.assert(
      fc.property(amount, anyScale, (minor, scale) => {
        const unit = 10n ** BigInt(scale);
        const whole = floorToWholeUnits(minor, scale);
        expect(whole % unit).toBe(0n);
        expect(whole <= minor && minor - whole < unit).toBe(true);
        expect(floorToWholeUnits(whole, scale)).toBe(whole);
      }),
    );
  });

  it('worked examples: 4,599.86 MXN is 4,599.00; VND has no fraction to drop', () => {
    expect(floorToWholeUnits(459_986n, 2)).toBe(459_900n);
    expect(floorToWholeUnits(99n, 2)).toBe(0n);
    expect(floorToWholeUnits(2_459_881n, 0)).toBe(2_459_881n);
    expect(floorToWholeUnits(1_999_999n, 6)).toBe(1_000_000n);
    expect(() => floorToWholeUnits(-1n, 2)).toThrow(AmountError);
  });
});

describe('basisPoints', () => {
  const bps = fc.integer({ min: 0, max: 10_000 });
  const anyBps = fc.integer({ min: 0, max: 1_000_000 });

  it('is floor(x·bps/10000)', () => {
    fc.assert(
      fc.property(amount, anyBps, (x, b) => {
        const r = basisPoints(x, b);
        expect(r * 10_000n <= x * BigInt(b)).toBe(true);
        expect(x * BigInt(b) < (r + 1n) * 10_000n).toBe(true);
      }),
    );
    expect(basisPoints(100_000_000n, 50)).toBe(500_000n);
    expect(basisPoints(99_650_000n, 35)).toBe(348_775n);
    expect(basisPoints(9_999n, 1)).toBe(0n);
    expect(basisPoints(10_000n, 1)).toBe(1n);
    expect(basisPoints(19_999n, 1)).toBe(1n);
  });

  it('is at most x for bps ≤ 10000, x itself at 10000 and 0 at 0', () => {
    fc.assert(
      fc.property(amount, bps, (x, b) => {
        const r = basisPoints(x, b);
        expect(r >= 0n && r <= x).toBe(true);
        expect(basisPoints(x, 10_000)).toBe(x);
        expect(basisPoints(x, 0)).toBe(0n);
      }),
    );
  });

  it('is monotone in the amount and in the basis points', () => {
    fc.assert(
      fc.property(amount, amount, anyBps, anyBps, (a, b, p, q) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const [pLow, pHigh] = p <= q ? [p, q] : [q, p];
        expect(basisPoints(low, p) <= basisPoints(high, p)).toBe(true);
        expect(basisPoints(a, pLow) <= basisPoints(a, pHigh)).toBe(true);
      }),
    );
  });

  it('is additive up to one unit: bp(a)+bp(b) ≤ bp(a+b) ≤ bp(a)+bp(b)+1', () => {
    fc.assert(
      fc.property(amount, amount, anyBps, (a, b, p) => {
        const sum = basisPoints(a, p) + basisPoints(b, p);
        const whole = basisPoints(a + b, p);
        expect(sum <= whole).toBe(true);
        expect(whole <= sum + 1n).toBe(true);
      }),
    );
  });

  it('refuses negative or fractional basis points', () => {
    for (const b of [-1, 0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => basisPoints(100n, b), String(b)).toThrow(AmountError);
  });
});
