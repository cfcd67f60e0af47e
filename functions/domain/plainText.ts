/**
 * Text that callers give (names, addresses, references) and that others read: in an e-mail, in a
 * list, in a CSV statement (docs/decisions/109). What would change how the text around it reads is
 * refused where text comes in (schemas/common.ts `plainText`) and shown escaped where text goes out
 * (`quoted`), for text stored before the rule:
 * - control characters (Unicode Cc: C0 with tab and line breaks, DEL, C1 with NEL);
 * - the line and paragraph separators U+2028 and U+2029 (Zl, Zp), line breaks to many readers;
 * - the bidirectional embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, which
 *   reorder what is shown ("Trojan Source"). The marks U+200E, U+200F and U+061C stay allowed: they
 *   only nudge one character and right-to-left names need them. So do the other format characters
 *   (Cf), such as the zero-width joiner inside emoji.
 */
const layoutCharacter = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;
const layoutCharacters = new RegExp(layoutCharacter.source, 'gu');

export const plainTextMessage = 'must not contain control characters (line breaks, tabs), line or paragraph separators, or bidirectional overrides';

export function isPlainText(text: string): boolean {
  return !layoutCharacter.test(text);
}

/** A header or subject is one line: each run of such characters becomes one space. */
export function oneLine(value: string): string {
  return value.replace(new RegExp(`(?:${layoutCharacter.source})+`, 'gu'), ' ');
}

/**
 * A caller's text as data inside a sentence of ours: in double quotes, with a quote or backslash in
 * it escaped and every character above written as `\u{…}`, so it stays on its line and reads in its
 * order, whatever was stored.
 */
export function quoted(text: string): string {
  const escaped = text
    .replace(/[\\"]/g, (character) => `\\${character}`)
    .replace(layoutCharacters, (character) => `\\u{${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`);
  return `"${escaped}"`;
}
