/** Text from callers placed in an HTML e-mail or page: every character that could open markup is an entity. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
