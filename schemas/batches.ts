import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { Corridor, CorridorInput, DecimalAmount, IdempotencyKey, Money, PageFields, PathId, Timestamp, pageQuery, plainText } from './common.ts';
import { Beneficiary, Originator, PaymentState } from './transactions.ts';

export const BatchItemInput = /* @__PURE__ */ schema(() => z
  .object({
    itemRef: z
      .string()
      .check(z.regex(/^[A-Za-z0-9_.:-]{1,64}$/), z.meta({ description: "Unique within the batch; the item's transaction id is `<batchId>:<itemRef>`." })),
    sendAmount: DecimalAmount,
    recipientReference: plainText(200),
    beneficiary: z.optional(Beneficiary).check(z.meta({ description: 'Give this or `recipientId`.' })),
    recipientId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))).check(
      z.meta({
        description: 'A saved recipient resolved by the service; give this or `beneficiary`.',
      }),
    ),
  })
  .check(
    // "Give this or recipientId": exactly one says where the item is paid; both would leave it ambiguous.
    z.superRefine((item, context) => {
      if ((item.beneficiary === undefined) === (item.recipientId === undefined)) {
        context.addIssue({
          code: 'custom',
          path: item.beneficiary === undefined ? ['beneficiary'] : ['recipientId'],
          message: 'give exactly one of beneficiary or recipientId',
        });
      }
    }),
    z.meta({ id: 'BatchItemInput', description: 'Exactly one of `beneficiary` and `recipientId` (our reading of "give this or that").' }),
  ));
export type BatchItemInput = z.infer<typeof BatchItemInput>;

/** POST /batches: unknown fields are ignored (stripped). Accepted or refused as a whole. */
export const CreateBatchBody = /* @__PURE__ */ schema(() => z
  .object({
    batchId: IdempotencyKey.check(z.meta({ description: 'Becomes the batch id; resubmitting the same batch is safe.' })),
    corridor: CorridorInput.check(z.meta({ description: 'Shared by all items.' })),
    provider: z.string().check(z.minLength(1), z.maxLength(64), z.meta({ description: 'The single rail of the batch.' })),
    integratorWalletId: z.optional(z.string().check(z.minLength(1), z.maxLength(265))).check(z.meta({ description: 'Must be the home wallet.' })),
    originator: z.optional(Originator).check(z.meta({ description: 'One per batch.' })),
    items: z.array(BatchItemInput).check(z.minLength(1), z.maxLength(1000), z.meta({ description: '1 to 1000 items, all in the same currency.' })),
  })
  .check(z.meta({ id: 'CreateBatchRequest' })));
export type CreateBatchBody = z.infer<typeof CreateBatchBody>;

/**
 * Batch states are not shown by the contract. Ours (docs/decisions/090): ACCEPTED (stored and funded in
 * one transfer, no item started yet), PROCESSING (items being started and paid, each on its own),
 * COMPLETED (every item reached an end state, whatever it was), REJECTED (refused as a whole when the
 * balance could not cover it; `rejectedReason` says why, nothing was held).
 */
export const BatchState = /* @__PURE__ */ schema(() => z.enum(['ACCEPTED', 'PROCESSING', 'COMPLETED', 'REJECTED']).check(
  z.meta({
    id: 'BatchState',
    description:
      'Batch states are not shown by the contract; these values are our choice (docs/decisions/090). ACCEPTED: funded in one transfer, no item started yet. COMPLETED means every item reached an end state, not that every item was paid. REJECTED: the balance did not cover the batch; nothing was held (`rejectedReason`).',
  }),
));
export type BatchState = z.infer<typeof BatchState>;

/**
 * An item is a payment with id `<batchId>:<itemRef>`, so its state is a payment state (our choice),
 * plus QUEUED: funded by the batch's transfer, its payment not started yet.
 */
export const BatchItemState = /* @__PURE__ */ schema(() => z.enum(['QUEUED', ...PaymentState.options]).check(
  z.meta({
    id: 'BatchItemState',
    description: "QUEUED (funded by the batch, its payment not started yet), then the states of the item's payment (GET /transactions/{transactionId}).",
  }),
));
export type BatchItemState = z.infer<typeof BatchItemState>;

export const BatchAccepted = /* @__PURE__ */ schema(() => z
  .object({
    batchId: z.string(),
    state: BatchState,
    itemCount: z.number().check(z.int(), z.minimum(1)),
    note: z.string().check(z.meta({ description: 'Text for people.' })),
  })
  .check(z.meta({ id: 'BatchAccepted' })));
export type BatchAccepted = z.infer<typeof BatchAccepted>;

const BatchTotal = /* @__PURE__ */ schema(() => Money.check(z.meta({ description: 'Sum of the items; `scale` may be omitted.' })));

export const BatchSummary = /* @__PURE__ */ schema(() => z
  .object({
    batchId: z.string(),
    state: BatchState,
    corridor: Corridor,
    provider: z.string(),
    itemCount: z.number().check(z.int(), z.minimum(0)),
    totalSendAmount: BatchTotal,
    createdAt: Timestamp,
  })
  .check(z.meta({ id: 'BatchSummary' })));
export type BatchSummary = z.infer<typeof BatchSummary>;

export const ListBatchesQuery = /* @__PURE__ */ schema(() => pageQuery(500));
export type ListBatchesQuery = z.infer<typeof ListBatchesQuery>;

export const BatchList = /* @__PURE__ */ schema(() => z.object({ batches: z.array(BatchSummary), ...PageFields }).check(z.meta({ id: 'BatchList' })));
export type BatchList = z.infer<typeof BatchList>;

export const BatchItem = /* @__PURE__ */ schema(() => z
  .object({
    itemRef: z.string(),
    transactionId: z.string().check(z.meta({ description: '`<batchId>:<itemRef>`; readable with GET /transactions/{transactionId}.' })),
    state: BatchItemState,
    sendAmount: Money,
    recipientReference: z.string(),
    failureReason: z.optional(z.string()),
  })
  .check(z.meta({ id: 'BatchItem' })));
export type BatchItem = z.infer<typeof BatchItem>;

export const BatchDetail = /* @__PURE__ */ schema(() => z
  .object({
    batchId: z.string(),
    state: BatchState,
    corridor: Corridor,
    provider: z.string(),
    chain: z.string(),
    itemCount: z.number().check(z.int(), z.minimum(0)),
    totalSendAmount: BatchTotal,
    items: z
      .partialRecord(BatchItemState, z.number().check(z.int(), z.minimum(0)))
      .check(z.meta({ description: 'Count of items per item state; a state with no items is omitted.' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    page: z.object({
      items: z.array(BatchItem),
      nextCursor: PageFields.nextCursor,
      hasMore: PageFields.hasMore,
    }),
    rejectedReason: z.optional(z.string()),
  })
  .check(z.meta({ id: 'BatchDetail' })));
export type BatchDetail = z.infer<typeof BatchDetail>;

/** The page query of GET /batches/{batchId} applies to the items page. */
export const GetBatchQuery = /* @__PURE__ */ schema(() => pageQuery(500));
export type GetBatchQuery = z.infer<typeof GetBatchQuery>;

export const BatchParams = /* @__PURE__ */ schema(() => z.object({ batchId: PathId }));
export type BatchParams = z.infer<typeof BatchParams>;
