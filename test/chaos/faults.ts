import { DynamoDBClient, ThrottlingException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LocalEventBus } from '../../lib/local/eventBus.ts';
import { localGrants } from '../../lib/local/grants/enforcement.ts';
import type { Receiver } from '../support/webhookReceiver.ts';
import { attemptTimeoutMs } from '#domain/webhookRetries.ts';
import { ChainSendUnanswered, chainSender, useChainSender, type ChainSender } from '#providers/chain.ts';
import { PayoutUnanswered, payoutProvider, usePayoutProvider, type PayoutProvider } from '#providers/payout.ts';

/**
 * Faults injected at the adapters while the workload runs (issue 29), in this process: the stack
 * runs in it (test/chaos/world.ts startWorld), so each fault is the one AWS or a partner would
 * cause, at the port where it would arrive, and the code under test is unchanged.
 *
 * - `dynamoThrottled`: a DynamoDB call refused with ThrottlingException, as after the SDK's own
 *   retries; nothing was written. Any function's call may meet it.
 * - `dynamoAnswerLost`: a DynamoDB write that committed, and its answer lost (the SDK's
 *   TimeoutError): the caller cannot tell it from a write that never happened. Only where the
 *   platform or the contract makes a second try safe: workflow steps and event targets (retried by
 *   Step Functions and SQS) and the keyed POSTs an integrator sends again after a 503.
 * - `eventTwice`: a bus delivery handed to its target again after it succeeded (SQS is at least once).
 * - `eventLate`: a bus delivery held back for a while before its target sees it.
 * - `receiverFailed` / `receiverHung`: the organization's webhook receiver answers 500, or holds the
 *   request past the sender's timeout before it answers.
 * - `providerAnswerLost`: a payout or chain send the provider accepted, its answer lost on the way
 *   back (the port's Unanswered error): the step must ask the provider by reference, find it, and
 *   go on as the answer would have; never submit again, never park what the provider knows.
 * - `providerTwice`: a payout or chain send that reaches the provider twice (a client's retry of a
 *   request whose first copy landed): the provider answers the first, and nothing is paid twice.
 *   Both only where the provider accepted: a refusal is not recorded, so a lost one is rightly IN_DOUBT.
 *
 * Only calls made inside a deployed function are touched (the local grants know which function runs):
 * the workflow runner's own bookkeeping stands for Step Functions, and the harness's setup and
 * checks read the table directly.
 */
export type FaultKind = 'dynamoThrottled' | 'dynamoAnswerLost' | 'eventTwice' | 'eventLate' | 'receiverFailed' | 'receiverHung' | 'providerAnswerLost' | 'providerTwice';

/** The chance of each fault per opportunity (a DynamoDB call, a bus delivery, a webhook attempt). */
export type FaultPlan = Record<FaultKind, number>;

export const defaultFaultPlan: FaultPlan = {
  dynamoThrottled: 0.01,
  dynamoAnswerLost: 0.01,
  eventTwice: 0.05,
  eventLate: 0.05,
  receiverFailed: 0.05,
  receiverHung: 0.005,
  providerAnswerLost: 0.03,
  providerTwice: 0.03,
};

/** API functions whose writes may lose their answer: the POSTs an integrator resends with the same key. */
const keyedApiEntries = new Set([
  'functions/api/transactions/createTransaction.ts',
  'functions/api/withdrawals/createWithdrawal.ts',
  'functions/api/batches/createBatch.ts',
  'functions/api/offRamps/createOffRamp.ts',
  'functions/api/onRamps/createPixOnRamp.ts',
]);

const writeCommands = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand', 'PutCommand', 'UpdateCommand', 'DeleteCommand', 'TransactWriteCommand', 'BatchWriteCommand']);

/** How long a hung receiver holds a delivery: past the webhook sender's timeout. */
const hangMs = attemptTimeoutMs + 2_000;
/** How long a late bus delivery waits before its target sees it. */
const lateMs = { min: 500, max: 3_000 };

type Send = (this: unknown, command: { constructor: { name: string } }, ...rest: unknown[]) => Promise<unknown>;
type Deliver = (this: LocalEventBus, rule: unknown, batch: { attempt: number }[]) => Promise<void>;

export interface Faults {
  injected(): Record<FaultKind, number>;
  stop(): void;
}

/** Starts injecting `plan`'s faults; `random` (seeded by the caller) decides each opportunity. */
export function injectFaults(plan: FaultPlan, random: () => number, receiver: Receiver): Faults {
  const counts: Record<FaultKind, number> = { dynamoThrottled: 0, dynamoAnswerLost: 0, eventTwice: 0, eventLate: 0, receiverFailed: 0, receiverHung: 0, providerAnswerLost: 0, providerTwice: 0 };
  const roll = (kind: FaultKind) => {
    if (random() >= plan[kind]) return false;
    counts[kind] += 1;
    return true;
  };

  // Every SDK client shares this prototype's send; only DynamoDB's calls inside a function are touched.
  const clientPrototype = Object.getPrototypeOf(DynamoDBClient.prototype) as { send: Send };
  const send = clientPrototype.send;
  clientPrototype.send = async function faulty(this: unknown, command, ...rest) {
    const running = localGrants()?.current();
    if (!running || !(this instanceof DynamoDBClient || this instanceof DynamoDBDocumentClient)) return send.call(this, command, ...rest);
    if (roll('dynamoThrottled')) throw new ThrottlingException({ message: 'Rate of requests exceeds the allowed throughput (injected by the chaos harness).', $metadata: { httpStatusCode: 400 } });
    const answer = await send.call(this, command, ...rest);
    const mayLoseAnswer = !running.entry.startsWith('functions/api/') || keyedApiEntries.has(running.entry);
    if (mayLoseAnswer && writeCommands.has(command.constructor.name) && roll('dynamoAnswerLost')) {
      throw Object.assign(new Error('the request timed out after it was sent (injected by the chaos harness; the write committed)'), { name: 'TimeoutError' });
    }
    return answer;
  };

  // The bus's delivery of a batch to its target (lib/local/eventBus.ts): held back, or handed over twice.
  const busPrototype = LocalEventBus.prototype as unknown as { deliver: Deliver };
  const deliver = busPrototype.deliver;
  busPrototype.deliver = async function faulty(this: LocalEventBus, rule, batch) {
    if (roll('eventLate')) await new Promise((resolve) => setTimeout(resolve, lateMs.min + random() * (lateMs.max - lateMs.min)));
    await deliver.call(this, rule, batch);
    // Received again, as SQS does when a delete is lost: its receive count one higher.
    if (roll('eventTwice')) await deliver.call(this, rule, batch.map((message) => ({ ...message, attempt: message.attempt + 1 })));
  };

  const respond = receiver.respond;
  receiver.respond = async (delivery) => {
    if (roll('receiverFailed')) return { status: 500 };
    if (roll('receiverHung')) {
      await new Promise((resolve) => setTimeout(resolve, hangMs));
      return { status: 200 };
    }
    return respond(delivery);
  };

  // The provider ports (the simulators stand for the partners): installed over them, as a test may at a port.
  const payouts = payoutProvider();
  const faultyPayouts: PayoutProvider = {
    name: payouts.name,
    submit: (request) => providerCall(() => payouts.submit(request), (answer) => answer.status === 'accepted', () => new PayoutUnanswered(`the payout answer for ${request.reference} was lost (injected by the chaos harness; the provider accepted it)`)),
    status: (reference) => payouts.status(reference),
  };
  usePayoutProvider(faultyPayouts);
  const chain = chainSender();
  const faultyChain: ChainSender = {
    name: chain.name,
    send: (request) => providerCall(() => chain.send(request), (answer) => answer.status === 'accepted', () => new ChainSendUnanswered(`the chain send answer for ${request.reference} was lost (injected by the chaos harness; the provider accepted it)`)),
    sendStatus: (reference) => chain.sendStatus(reference),
    moveHome: (request) => chain.moveHome(request),
    moveHomeStatus: (reference) => chain.moveHomeStatus(reference),
  };
  useChainSender(faultyChain);
  async function providerCall<A>(call: () => Promise<A>, accepted: (answer: A) => boolean, lost: () => Error): Promise<A> {
    if (!localGrants()?.current()) return call();
    // A copy that landed first; the provider answers the second as it answered the first.
    if (roll('providerTwice')) await call().catch(() => undefined);
    const answer = await call();
    if (accepted(answer) && roll('providerAnswerLost')) throw lost();
    return answer;
  }

  return {
    injected: () => ({ ...counts }),
    stop() {
      clientPrototype.send = send;
      busPrototype.deliver = deliver;
      receiver.respond = respond;
      usePayoutProvider(undefined);
      useChainSender(undefined);
    },
  };
}
