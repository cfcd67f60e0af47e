import type { paths } from './schema.d.ts';

type ListBody<Path extends keyof paths> = paths[Path] extends { get: { responses: { 200: { content: { 'application/json': infer Body } } } } } ? Body : never;
type ListQuery<Path extends keyof paths> = paths[Path] extends { get: { parameters: { query?: infer Query } } } ? NonNullable<Query> : never;
type ArrayFields<Body> = { [Field in keyof Body]: Body[Field] extends readonly unknown[] ? Field : never }[keyof Body] & string;

/** The lists walked by cursor: a GET whose answer carries `nextCursor`. */
export type ListPath = { [Path in keyof paths]: [ListBody<Path>] extends [never] ? never : ListBody<Path> extends { nextCursor: string | null } ? Path : never }[keyof paths];

/**
 * Which field of each list holds its rows. Typed against the generated document: a new cursor list
 * that is not named here fails the type check, and so does a field that is not the list's array.
 */
export const listItemFields = {
  '/transactions': 'transactions',
  '/batches': 'batches',
  '/treasury/onramps': 'onramps',
  '/treasury/withdrawals': 'withdrawals',
  '/treasury/offramps': 'offramps',
  '/events': 'events',
} as const satisfies { [Path in ListPath]: ArrayFields<ListBody<Path>> };

/** One row of a list (`TransactionListItem` for `/transactions`, …). */
export type ListItem<Path extends ListPath> = Path extends keyof typeof listItemFields ? ItemOf<ListBody<Path>, (typeof listItemFields)[Path]> : never;
type ItemOf<Body, Field> = Field extends keyof Body ? (Body[Field] extends readonly (infer Item)[] ? Item : never) : never;

/** The list's filters and `limit` (the page size); the walk sets `cursor` itself. */
export interface PaginateOptions<Path extends ListPath> {
  query?: Omit<ListQuery<Path>, 'cursor'>;
  signal?: AbortSignal;
}
