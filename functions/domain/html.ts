/** Text from callers placed in an HTML e-mail or page: every character that could open markup is an entity. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A header or subject is one line: control characters would fold it into something else. */
export function oneLine(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}
