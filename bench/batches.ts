/**
 * Batch payouts on the local stack, for `npm run bench` (bench/run.ts calls batchFigures), with
 * every simulated delay at zero:
 * - POST /batches of 1,000 items: the time to its 202;
 * - the time from the 202 until every item has reached a final state (the latest end stamped on
 *   the items' payments), and until the batch's workflow has seen it COMPLETED;
 * - both for the first such batch of the section (in `BENCH_ONLY=batches`, the first work of a
 *   just-started DynamoDB Local JVM and of this process: the JIT compilers take a share of the two
 *   cores) and for the second, the steady state the target is read against;
 * - CPU time per item of DynamoDB Local's JVM and of this process (the service), from /proc;
 * - per item: DynamoDB calls and capacity (the request and everything after it), state transitions
 *   (the batch's own workflow and the item's payment), outbox events;
 * - the AWS list-price cost per 1,000 batch items, beside bench/payments.ts's per 1,000 payments.
 * Everything runs in this process, so the client's own counters see every call.
 */
import { performance } from 'node:perf_hooks';
import type { LocalService } from '../lib/local/service.ts';
import { dynamoCallCount, observeConsumedCapacity, queryAll, tableName } from '#store/client.ts';
import { getBatch, readBatchCounts } from '#store/batches.ts';
import { getExecution } from '#store/executions.ts';
import { operationExecutionName } from '#operations/kit/start.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import {
  add, benchOrganization, countBusEvents, cpuMsPer, dynamoCpuMs, emptyTally, lambdaAssumedMs, lambdaMemoryGb, outsideTheService, pause, percentiles, perItem, prices, round, sqsRequestsPerMessage, uncounted, usd, type Tally,
} from './payments.ts';

export interface BatchBenchOptions {
  service: LocalService;
  log: (message: string) => void;
}

const itemCount = 1000;
/** The batch sent while a large one settles: the size the chaos harness's top-ups were. */
const busyItemCount = 70;
/** Settling batches the intake beside one is timed against: the figure is their median. */
const busySampleCount = 3;
const corridor = findCorridor('USDC', 'MXN', 'MX')!;
const beneficiary = sampleBeneficiary(corridor);

export async function batchFigures({ service, log }: BatchBenchOptions) {
  const previousCapacityFlag = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '1';
  delete process.env.PAYOUT_SETTLE_SECONDS;
  const { runner, bus } = service;

  let phase = 'idle';
  const tallies = new Map<string, Tally>();
  const tallyOf = (name: string) => tallies.get(name) ?? (tallies.set(name, emptyTally()), tallies.get(name)!);
  const stopObserving = observeConsumedCapacity((record) => {
    const outside = outsideTheService(record.input);
    add(tallyOf(outside ? `${phase}:${outside}` : phase), record);
  });
  const { events, stopCounting } = countBusEvents(bus);

  try {
    log('batches: onboarding and funding an organization, lifting its rate limits');
    const { organizationId, headers } = await benchOrganization(service, 'Bench Batches Org');
    const body = (batchId: string, count: number) => ({
      batchId,
      corridor: { to: 'MXN', destinationCountry: 'MX' },
      provider: corridor.routes[0]!.provider,
      items: Array.from({ length: count }, (_, index) => ({
        itemRef: `row-${index}`, sendAmount: { amount: '10.00', currency: 'USDC' }, recipientReference: `bench ${index}`, beneficiary,
      })),
    });
    const send = async (batchId: string, count: number, into = headers) => {
      const started = performance.now();
      const response = await fetch(`${service.url}/batches`, { method: 'POST', headers: into, body: JSON.stringify(body(batchId, count)) });
      const answered = performance.now() - started;
      if (response.status !== 202) throw new Error(`POST /batches answered ${response.status}: ${await response.text()}`);
      return answered;
    };
    const quiesce = async () => {
      for (;;) {
        await runner.idle();
        await bus.idle();
        const calls = dynamoCallCount();
        const published = events.published;
        await pause(400);
        if (calls === dynamoCallCount() && published === events.published) return;
      }
    };

    /** When the last item of a batch ended: the latest end stamped on its items' payments. */
    const lastItemEnded = async (batchId: string) => {
      const payments = await queryAll({
        TableName: tableName(), KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':from': `TX#${batchId}:`, ':to': `TX#${batchId};` }, ConsistentRead: true,
      });
      return Math.max(...payments.map((payment) => Date.parse(payment.updatedAt as string)));
    };

    // The first large batch: in BENCH_ONLY=batches the first work of the JVM and of this process, so
    // JIT compilation shares the cores with it; measured, and reported apart from the steady state.
    // Calls and units are counted on the first batch; the second, the one timed, runs as deployed
    // functions do, without ReturnConsumedCapacity on every call and its tally (about a fifth of the
    // CPU an item here). Both batches make the same calls an item.
    log(`batches: a first batch of ${itemCount} items, counting calls and capacity`);
    const firstId = `bench-first-${Date.now().toString(36)}`;
    phase = 'request';
    const firstAcceptedMs = await send(firstId, itemCount);
    phase = 'after';
    const firstAcceptedAt = Date.now();
    await runner.waitFor(operationExecutionName('batch', organizationId, firstId), 120_000);
    const firstAllEndedMs = (await lastItemEnded(firstId)) - firstAcceptedAt;
    await quiesce();
    phase = 'idle';

    log(`batches: one batch of ${itemCount} items, from POST to every item ended`);
    const batchId = `bench-batch-${Date.now().toString(36)}`;
    const transitionsBefore = runner.stateTransitions;
    const eventsBefore = { published: events.published, deliveries: events.deliveries, byType: { ...events.byType } };
    const cpuBefore = { dynamodbLocal: dynamoCpuMs(service.dynamoPid), service: process.cpuUsage() };
    const { started, acceptedMs, accepted, acceptedAt, outcome, completedMs } = await uncounted(async () => {
      const started = performance.now();
      const acceptedMs = await send(batchId, itemCount);
      const accepted = performance.now();
      const acceptedAt = Date.now();
      // Waiting on the batch's own execution: no polling read of ours in the figures.
      const outcome = await runner.waitFor(operationExecutionName('batch', organizationId, batchId), 120_000);
      return { started, acceptedMs, accepted, acceptedAt, outcome, completedMs: performance.now() - accepted };
    });
    const serviceCpu = process.cpuUsage(cpuBefore.service);
    const dynamoCpuAfter = dynamoCpuMs(service.dynamoPid);
    await uncounted(quiesce);
    const allEndedMs = (await lastItemEnded(batchId)) - acceptedAt;
    const counts = await readBatchCounts((await getBatch(organizationId, batchId))!);
    const transitions = runner.stateTransitions - transitionsBefore;
    const execution = await getExecution(operationExecutionName('batch', organizationId, batchId), 'batch');
    const batchEvents = (execution?.events?.length ?? 0) + (execution?.droppedEvents ?? 0);
    const batchTasks = (execution?.events ?? []).filter((event) => event.type === 'TaskScheduled').length;
    const batchTransitions = (execution?.events ?? []).filter((event) => (event.type ?? '').endsWith('StateEntered')).length;
    // One item's payment: every item's carries the same fields, whatever the batch's size.
    const itemPayment = await getExecution(operationExecutionName('payment', organizationId, `${batchId}:row-${itemCount - 1}`), 'payment');
    const state = (await getBatch(organizationId, batchId))?.state;

    const request = perItem(tallyOf('request'), itemCount);
    const after = tallyOf('after');
    const total = emptyTally();
    for (const part of [tallyOf('request'), after]) {
      total.calls += part.calls;
      total.readUnits += part.readUnits;
      total.writeUnits += part.writeUnits;
      total.awsReadUnits += part.awsReadUnits;
      total.awsWriteUnits += part.awsWriteUnits;
      total.failedCalls += part.failedCalls;
    }
    const perItemTotal = perItem(total, itemCount);
    const transitionsPerItem = transitions / itemCount;
    const outboxPerItem = (events.published - eventsBefore.published) / itemCount;
    const deliveriesPerItem = (events.deliveries - eventsBefore.deliveries) / itemCount;
    // Lambda: the POST once per batch; the batch's task calls; per item its payment's tasks (3: submit, poll, reconcile), the forwarder and the targets.
    const lambdaPerItem = 1 / itemCount + batchTasks / itemCount + 3 + outboxPerItem + deliveriesPerItem;
    const per = 1000;
    const cost = {
      dynamodb: usd(per * (perItemTotal.awsWriteUnits * prices.dynamoWriteRequestUnit + perItemTotal.awsReadUnits * prices.dynamoReadRequestUnit)),
      stepFunctions: usd(per * transitionsPerItem * prices.stepFunctionsTransition),
      lambda: usd(per * lambdaPerItem * (prices.lambdaRequest + lambdaMemoryGb * (lambdaAssumedMs / 1000) * prices.lambdaGbSecond)),
      eventBridge: usd(per * outboxPerItem * prices.eventBridgeEvent),
      sqs: usd(per * deliveriesPerItem * sqsRequestsPerMessage * prices.sqsRequest),
      apiGateway: usd((per / itemCount) * prices.httpApiRequest),
    };
    const totalUsd = usd(Object.values(cost).reduce((sum, value) => sum + value, 0));
    if (outcome.status !== 'SUCCEEDED' || state !== 'COMPLETED') throw new Error(`the bench batch ended ${outcome.status}, ${state}`);
    // A smaller batch sent while a large one settles, into the same organization and into another:
    // on this stack every call waits behind the settling items' (docs/decisions/155). After every
    // figure above is read: its items' events and calls are not the measured batch's.
    log(`batches: ${busyItemCount}-item batches while one of ${itemCount} settles, into its organization and into another`);
    const other = await benchOrganization(service, 'Bench Batches Other Org');
    const idleIntakeMs = await send(`bench-idle-${Date.now().toString(36)}`, busyItemCount, other.headers);
    await quiesce();
    // One sample of each swung 2.2 to 5.9 s from run to run on the same code: the median of several
    // settling batches is the figure, every sample beside it.
    const busySamples: { otherOrganizationMs: number; sameOrganizationMs: number; settlingBatchState: string | null }[] = [];
    for (let sample = 0; sample < busySampleCount; sample += 1) {
      const settlingId = `bench-settling-${sample}-${Date.now().toString(36)}`;
      await send(settlingId, itemCount);
      // Its items running: the first chunks started, the rest queued.
      await pause(2_000);
      const otherOrganizationMs = await send(`bench-busy-other-${sample}-${Date.now().toString(36)}`, busyItemCount, other.headers);
      const sameOrganizationMs = await send(`bench-busy-same-${sample}-${Date.now().toString(36)}`, busyItemCount);
      busySamples.push({ otherOrganizationMs: round(otherOrganizationMs, 1), sameOrganizationMs: round(sameOrganizationMs, 1), settlingBatchState: (await getBatch(organizationId, settlingId))?.state ?? null });
      await runner.waitFor(operationExecutionName('batch', organizationId, settlingId), 120_000);
      await quiesce();
    }
    return {
      settings: { items: itemCount, sendAmount: '10.00 USDC each', corridor: 'USDC → MXN (MX)', waitStateSeconds: 0, payoutSettleSeconds: 0 },
      acceptedMs: round(acceptedMs, 1),
      target: '202 within 1 s for 1,000 items; every item final within 30 s (this batch: the second of the section; the first is firstBatch)',
      acceptedToAllItemsEndedSeconds: round(allEndedMs / 1000, 2),
      acceptedToBatchCompletedSeconds: round(completedMs / 1000, 2),
      firstPostToAllItemsEndedSeconds: round((accepted - started + allEndedMs) / 1000, 2),
      itemsPerSecond: round(itemCount / (allEndedMs / 1000), 1),
      firstBatch: {
        acceptedMs: round(firstAcceptedMs, 1),
        acceptedToAllItemsEndedSeconds: round(firstAllEndedMs / 1000, 2),
        note: 'the first 1,000-item batch of the section, before the one above: in BENCH_ONLY=batches the first work of a just-started DynamoDB Local and of this process (JIT compilation shares the two cores); in the whole bench it follows the other sections',
      },
      intakeWhileABatchSettles: {
        items: busyItemCount,
        idleMs: round(idleIntakeMs, 1),
        otherOrganizationMs: percentiles(busySamples.map((busy) => busy.otherOrganizationMs)).p50,
        sameOrganizationMs: percentiles(busySamples.map((busy) => busy.sameOrganizationMs)).p50,
        samples: busySamples,
        note: `POST /batches of ${busyItemCount} items to its 202: on an idle stack, then while a batch of ${itemCount} settles (sent 2 s before), into another organization and into the settling batch's own: the median of ${busySampleCount} settling batches (samples: each, with the settling batch's state when both were answered)`,
      },
      cpuMsPerItem: {
        ...cpuMsPer(cpuBefore.dynamodbLocal, dynamoCpuAfter, serviceCpu, itemCount),
        note: 'from the POST until the batch workflow saw COMPLETED; perSecondAtMost: the cores over the sum, the items a second this CPU per item allows with every core busy',
      },
      finalCounts: counts,
      batchWorkflow: { historyEvents: batchEvents, taskCalls: batchTasks, stateTransitions: batchTransitions, limit: 'Step Functions keeps at most 25,000 history events per execution' },
      largestStatePayloadBytes: {
        batch: execution?.largestPayloadBytes ?? null,
        itemPayment: itemPayment?.largestPayloadBytes ?? null,
        limit: 'Step Functions carries at most 262,144 bytes per state input, output or task payload (lib/local/stepFunctionsLimits.ts)',
      },
      perItem: {
        stateTransitions: round(transitionsPerItem, 2),
        outboxEvents: round(outboxPerItem, 2),
        ruleDeliveries: round(deliveriesPerItem, 2),
        dynamo: {
          request: { ...request, note: 'POST /batches, shared by its 1,000 items' },
          localRunnerBookkeeping: { ...perItem(tallyOf('after:runner'), itemCount), note: 'execution records of the local ASL runner: Step Functions keeps these in AWS, left out of the cost' },
          payoutSimulator: { ...perItem(tallyOf('after:simulator'), itemCount), note: 'the simulated payout provider\'s book, left out of the cost' },
          total: { ...perItemTotal, note: 'the request and everything after it until every item ended (runner and payout simulator calls left out, as in the payment figures); counted on firstBatch, since the timed batch runs without capacity counting and makes the same calls an item' },
        },
      },
      costPer1000Items: { ...cost, totalUsd, note: 'same prices and assumptions as payments.costPer1000Payments; compare with its pricedAtAcceptance total' },
    };
  } finally {
    stopObserving();
    stopCounting();
    if (previousCapacityFlag === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previousCapacityFlag;
  }
}
