import { getOperation, listOperations, type OperationBase, type OperationKind } from '#store/operations.ts';

/**
 * The reads every operation stored as operation items answers (GET one, GET a page): the record
 * under its kind, shown through the operation's own view. Another organization's is simply absent:
 * the key is scoped by the caller's organization.
 */
export async function storedOperationView<R extends OperationBase, V>(organizationId: string, kind: OperationKind, id: string, view: (record: R) => V): Promise<V | undefined> {
  const record = await getOperation<R>(organizationId, kind, id);
  return record && view(record);
}

/** A page of the organization's operations of a kind, newest first, each through the operation's list view. */
export async function storedOperationPage<R extends OperationBase, V>(
  organizationId: string,
  kind: OperationKind,
  page: { limit?: number; cursor?: string },
  view: (record: R) => V,
): Promise<{ rows: V[]; nextCursor: string | null }> {
  const { rows, nextCursor } = await listOperations<R>(organizationId, kind, page);
  return { rows: rows.map(view), nextCursor };
}
