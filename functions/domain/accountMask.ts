/**
 * Apart from screening (functions/domain/screening.ts), whose look-alike table (functions/domain/lookAlikes.ts, 6 KB)
 * only the functions that screen should load: notifications and views mask accounts too.
 */
/** What the compliance record keeps of an account: the last four characters of a long one, nothing of a short one. */
export function maskAccount(account: string): string {
  const visible = account.length >= 8 ? account.slice(-4) : '';
  return `${'*'.repeat(Math.max(4, account.length - visible.length))}${visible}`;
}
