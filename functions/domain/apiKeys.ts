import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys: `sk_<env>_<organization ulid>_<key id>_<secret>`.
 * The organization and key id are public (they route the lookup, like Stripe's prefixes);
 * the secret is 256 random bits. Only the SHA-256 of the whole key is stored, and it is
 * compared in constant time. A key from another environment does not parse.
 */
const environmentTags = { simulated: 'sim', sandbox: 'sbx', production: 'live' } as const;
export type KeyEnvironment = keyof typeof environmentTags;

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const keyPattern = /^sk_(sim|sbx|live)_([0-9A-HJKMNP-TV-Z]{26})_([0-9a-z]{12})_([0-9A-Za-z]{43})$/;

export interface ParsedApiKey {
  organizationId: string;
  keyId: string;
  hash: string;
}

export interface IssuedApiKey extends ParsedApiKey {
  /** The key itself: shown once, never stored. */
  apiKey: string;
  /** First characters, safe to show in lists and logs. */
  prefix: string;
}

function base62(bytes: Buffer, length: number): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let text = '';
  for (let i = 0; i < length; i += 1) {
    text = alphabet[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text;
}

function keyIdFrom(bytes: Buffer): string {
  return [...bytes].map((byte) => '0123456789abcdefghijklmnopqrstuvwxyz'[byte % 36]).join('').slice(0, 12);
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** `org_<ulid>` → the ulid carried inside keys. */
function organizationUlid(organizationId: string): string {
  const ulid = organizationId.replace(/^org_/, '');
  if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(ulid)) throw new Error(`not an organization id: ${organizationId}`);
  return ulid;
}

export function issueApiKey(environment: KeyEnvironment, organizationId: string): IssuedApiKey {
  const keyId = keyIdFrom(randomBytes(12));
  // 32 bytes = 256 bits < 62^43, so 43 base62 digits hold every secret.
  const secret = base62(randomBytes(32), 43);
  const apiKey = `sk_${environmentTags[environment]}_${organizationUlid(organizationId)}_${keyId}_${secret}`;
  return { apiKey, organizationId, keyId, hash: hashApiKey(apiKey), prefix: apiKey.slice(0, 48) };
}

/** Undefined for anything that is not a well-formed key of this environment. */
export function parseApiKey(apiKey: string, environment: KeyEnvironment): ParsedApiKey | undefined {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, the pattern refuses a long key too; this spares the regex a huge header
  if (apiKey.length > 200) return undefined;
  const match = keyPattern.exec(apiKey);
  if (!match || match[1] !== environmentTags[environment]) return undefined;
  return { organizationId: `org_${match[2]}`, keyId: match[3]!, hash: hashApiKey(apiKey) };
}

export function sameHash(stored: unknown, presented: string): boolean {
  if (typeof stored !== 'string' || stored.length !== presented.length) return false;
  return timingSafeEqual(Buffer.from(stored, 'utf8'), Buffer.from(presented, 'utf8'));
}
