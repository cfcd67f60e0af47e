import createFetchClient, { type Client as FetchClient, type FetchResponse } from 'openapi-fetch';
import { unwrap } from './errors.ts';
import { idempotencyKeyFields, isInitiatePath, newIdempotencyKey, type InitiateBody, type InitiatePath } from './idempotency.ts';
import { listItemFields, type ListItem, type ListPath, type PaginateOptions } from './pagination.ts';
import { defaultRetryPolicy, withRetries, type RetryPolicy } from './retries.ts';
import type { paths } from './schema.d.ts';

export interface ClientOptions {
  /** The base address issued to you (`npm start` prints the local one). */
  baseUrl: string;
  /** The organization key or a member key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** The transport; the global fetch unless given (a proxy agent, a recording fetch in tests). */
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryPolicy;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** A typed method seen untyped, inside the client, where the path is only known at run time. */
type UntypedCall = (path: string, init?: object) => Promise<FetchResponse<object, object, 'application/json'>>;

/** What a money-moving call answers: the call's result and the idempotency key it was sent with (also the operation's id). */
export type Initiated<Path extends InitiatePath> = FetchResponse<paths[Path]['post'], object, 'application/json'> & { idempotencyKey: string };

export interface PaymentsClient {
  /**
   * Typed calls (openapi-fetch): `const { data, error } = await client.GET('/transactions/{transactionId}', { params: { path: { transactionId } } })`.
   * Exactly one of `data` and `error` is set; `error` is the operation's error union, discriminated on `error.error`.
   */
  GET: FetchClient<paths>['GET'];
  POST: FetchClient<paths>['POST'];
  PUT: FetchClient<paths>['PUT'];
  PATCH: FetchClient<paths>['PATCH'];
  DELETE: FetchClient<paths>['DELETE'];
  /**
   * A money-moving call (a payment, a batch, a deposit, a withdrawal, an off-ramp) with its
   * idempotency key made when the body has none, and answered with the result: store it before
   * acting on the answer, and send it again to retry without paying twice.
   */
  initiate<Path extends InitiatePath>(path: Path, init: { body: InitiateBody<Path>; signal?: AbortSignal }): Promise<Initiated<Path>>;
  /**
   * Every row of a list, page after page (newest first), following `nextCursor` until it is null:
   * `for await (const tx of client.paginate('/transactions', { query: { limit: 100 } }))`.
   * Throws `ApiError` on an error answer: an iterator has no result to return.
   */
  paginate<Path extends ListPath>(path: Path, options?: PaginateOptions<Path>): AsyncGenerator<ListItem<Path>, void, undefined>;
}

export function createClient(options: ClientOptions): PaymentsClient {
  const policy = { ...defaultRetryPolicy, ...options.retry };
  const transport = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  // Each call goes through the retry rules; openapi-fetch builds the request afresh from the same
  // options at every try, so a re-sent body is the same body, idempotency key included.
  const method = (name: Method) =>
    ((path: string, init?: { signal?: AbortSignal | null }) =>
      withRetries(
        () => (transport[name] as UntypedCall)(path, init),
        name === 'GET' || (name === 'POST' && isInitiatePath(path)),
        policy,
        init?.signal,
      )) as never;

  const client: PaymentsClient = {
    GET: method('GET'),
    POST: method('POST'),
    PUT: method('PUT'),
    PATCH: method('PATCH'),
    DELETE: method('DELETE'),

    async initiate(path, init) {
      const field = idempotencyKeyFields[path];
      const given = (init.body as Record<string, unknown>)[field];
      const idempotencyKey = typeof given === 'string' ? given : newIdempotencyKey();
      const body = { ...init.body, [field]: idempotencyKey };
      const post = client.POST as UntypedCall;
      const result = await post(path, { body, ...(init.signal ? { signal: init.signal } : {}) });
      return { ...result, idempotencyKey } as Initiated<typeof path>;
    },

    async *paginate(path, options = {}) {
      const field: string = listItemFields[path as keyof typeof listItemFields];
      const get = client.GET as UntypedCall;
      let cursor: string | undefined;
      for (;;) {
        const query = { ...options.query, ...(cursor === undefined ? {} : { cursor }) };
        const result = await get(path, { params: { query }, ...(options.signal ? { signal: options.signal } : {}) });
        const page = unwrap(result) as Record<string, unknown> & { nextCursor: string | null };
        yield* page[field] as ListItem<typeof path>[];
        // null is the only end of the list (an empty page with a cursor is not one).
        if (page.nextCursor === null) return;
        cursor = page.nextCursor;
      }
    },
  };
  return client;
}
