import type { paths } from './schema.d.ts';

/** The JSON body a POST takes. */
export type PostBody<Path extends keyof paths> = paths[Path] extends { post: { requestBody: { content: { 'application/json': infer Body } } } } ? Body : never;

/**
 * The operations that move money, and the body field carrying the idempotency key that becomes the
 * operation's id (the contract: "a retry of the same request never creates a second operation").
 * Checked against the document by a test, so a new money-moving route cannot be missed.
 */
export const idempotencyKeyFields = {
  '/transactions': 'idempotencyKey',
  '/batches': 'batchId',
  '/treasury/onramp': 'idempotencyKey',
  '/treasury/onramp/pix': 'idempotencyKey',
  '/treasury/withdrawals': 'idempotencyKey',
  '/treasury/offramp': 'idempotencyKey',
} as const satisfies { [Path in keyof paths]?: keyof PostBody<Path> & string };

export type InitiatePath = keyof typeof idempotencyKeyFields;
type KeyField<Path extends InitiatePath> = (typeof idempotencyKeyFields)[Path];

/** The body of a money-moving call with its idempotency key optional: the client makes one when it is left out. */
export type InitiateBody<Path extends InitiatePath> = Omit<PostBody<Path>, KeyField<Path>> & { [Field in KeyField<Path>]?: string };

/**
 * A fresh key (a UUID fits `^[A-Za-z0-9_.:-]{8,200}$`). Keep it with the work it stands for (the
 * invoice, the payroll run) before sending, so a retry after a crash sends the same one.
 */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

export function isInitiatePath(path: string): path is InitiatePath {
  return Object.hasOwn(idempotencyKeyFields, path);
}
