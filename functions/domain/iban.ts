/**
 * ISO 13616 IBAN check digits (ISO 7064 MOD 97-10) of an IBAN in electronic form (no spaces,
 * upper case). Per-country lengths are the caller's business (payout rails know theirs).
 */
export function ibanChecksumValid(iban: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= 'A' ? char.charCodeAt(0) - 55 : Number(char);
    // Letters are two digits; folding the remainder as we go keeps every step a small integer.
    remainder = value >= 10 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}
