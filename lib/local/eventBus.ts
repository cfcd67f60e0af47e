import { createHash, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { putEventsCalls, putEventsMaxBytes, type BusEntry, type EventBus, type PublishResult } from '#platform/eventBus.ts';
import { config } from '#platform/config.ts';
import { logger } from '#platform/logger.ts';
import { count } from '#platform/metrics.ts';
import { queueBatchSize, queueMaxReceiveCount } from '#platform/queueConsumer.ts';
import { eventRules, type EventPattern, type EventRule } from '#contract/events.ts';
import { invokeAs, localGrants } from './grants/enforcement.ts';

/**
 * EventBridge on this machine: the same rules (functions/contract/events.ts), the same pattern
 * semantics for the subset we use, the same targets called with the SQS-shaped event their
 * queue would hand them in AWS. Delivery is asynchronous, as with PutEvents: `publish`
 * answers once the bus has accepted the entries. A delivery that fails is retried a few times,
 * then kept in `deadLetters` (the queue's dead-letter queue in AWS) and logged. It refuses what
 * EventBridge and SQS refuse for size: a PutEvents call past putEventsMaxBytes, a queue message
 * past sqsMaxMessageBytes (kept in `failedInvocations`).
 */
export interface BusEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
}

export interface DeadLetter {
  rule: string;
  event: BusEvent;
  error: string;
  attempts: number;
  failedAt: string;
}

export interface LocalEventBusOptions {
  rules?: EventRule[];
  /** Deliveries per event and rule before it is dead-lettered (the queue's maxReceiveCount). */
  maxAttempts?: number;
  /** Pause between attempts; the queue's visibility timeout in AWS. */
  retryDelayMs?: number;
}

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const localAccount = '000000000000';

/** EventBridge's words for a PutEvents call past putEventsMaxBytes. */
export const putEventsTooLarge = 'Total size of the entries in the request is over the limit.';

/**
 * The most an SQS message body carries. The rules' queues take SQS's default, which is 1 MiB where
 * SQS has raised it and 256 KiB where it has not; the twin holds 256 KiB (docs/decisions/102).
 */
export const sqsMaxMessageBytes = 256 * 1024;

type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

export class LocalEventBus implements EventBus {
  readonly deadLetters: DeadLetter[] = [];
  /**
   * Events matched by a rule that EventBridge could not hand to its target (a message past SQS's
   * size): EventBridge's FailedInvocations. The rules' targets have no dead-letter queue in AWS, so
   * there they are lost; here they are kept for tests and logged.
   */
  readonly failedInvocations: DeadLetter[] = [];
  private readonly rules: EventRule[];
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly deliveries = new Set<Promise<void>>();
  private readonly handlers = new Map<string, Promise<SqsHandler>>();
  /** Per rule, the messages waiting to be handed to its target. */
  private readonly queues = new Map<string, { rule: EventRule; waiting: QueuedMessage[] }>();
  private readonly stopping = new AbortController();
  /** Events accepted so far: each is numbered in order, for `settled`. */
  private acceptedCount = 0;
  /** Per accepted event still in the bus (oldest first), the rules whose targets have yet to finish with it. */
  private readonly unfinished = new Map<number, Set<string>>();
  private settledWaiters: { upTo: number; resolve: () => void }[] = [];

  constructor(options: LocalEventBusOptions = {}) {
    this.rules = options.rules ?? eventRules;
    // Refuse a pattern we cannot evaluate now, not by silently never matching it later.
    for (const rule of this.rules) validatePattern(rule.pattern, rule.name);
    // As the deployed queues: a message dead-lettered here after fewer deliveries than AWS makes
    // would lose events locally that AWS delivers.
    this.maxAttempts = options.maxAttempts ?? queueMaxReceiveCount;
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
  }

  /**
   * As PutEvents: the entries go in the calls the port makes (putEventsCalls), and a call past
   * putEventsMaxBytes is refused whole, as EventBridge refuses it (docs/decisions/102).
   */
  async publish(entries: BusEntry[]): Promise<PublishResult> {
    const failed: PublishResult['failed'] = [];
    for (const call of putEventsCalls(entries)) {
      if (call.bytes > putEventsMaxBytes) {
        call.entries.forEach((_, offset) => failed.push({ index: call.start + offset, error: `ValidationException: ${putEventsTooLarge}` }));
        continue;
      }
      call.entries.forEach((entry, offset) => {
        const error = this.accept(entry);
        if (error) failed.push({ index: call.start + offset, error });
      });
    }
    return { failed };
  }

  /** One entry onto the bus: matched against every rule and queued for each match. Answers why it was refused, if it was. */
  private accept(entry: BusEntry): string | undefined {
    if (this.stopping.signal.aborted) return 'BusStopped: the local bus is stopping';
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail);
    } catch {
      return 'MalformedDetail: Detail is not valid JSON';
    }
    const event: BusEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: localAccount,
      time: (entry.Time ?? new Date()).toISOString(),
      region: config().AWS_REGION,
      resources: entry.Resources ?? [],
      detail,
    };
    // What EventBridge hands each matching rule's queue: the whole event, a little larger than the entry.
    const body = JSON.stringify(event);
    const bytes = Buffer.byteLength(body);
    const number = ++this.acceptedCount;
    for (const rule of this.rules) {
      if (!matchesPattern(rule.pattern, event as unknown as Record<string, unknown>)) continue;
      // SQS refuses a message past its size, so the event never reaches that target (no retry helps).
      if (bytes > sqsMaxMessageBytes) {
        this.undeliverable(rule, event, bytes);
        continue;
      }
      // One message id for every attempt, as SQS keeps it across redeliveries.
      this.unfinished.set(number, (this.unfinished.get(number) ?? new Set()).add(rule.name));
      this.enqueue(rule, { number, messageId: randomUUID(), event, body, sentAt: Date.now(), attempt: 1, lastError: '' });
    }
    return undefined;
  }

  /**
   * Resolves once every event accepted before the call has been handled by each target it matched,
   * or dead-lettered: this bus is in memory, so only then may the stream poller's checkpoint move past
   * the records that carried them (EventBridge holds an event durably once PutEvents answers).
   */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      this.settledWaiters.push({ upTo: this.acceptedCount, resolve });
      this.wakeSettled();
    });
  }

  /** A rule's target is done with an event (handled or dead-lettered); a second word of it changes nothing. */
  private finished(rule: EventRule, message: QueuedMessage): void {
    const rules = this.unfinished.get(message.number);
    rules?.delete(rule.name);
    if (rules?.size === 0) this.unfinished.delete(message.number);
    this.wakeSettled();
  }

  private wakeSettled(): void {
    if (this.settledWaiters.length === 0) return;
    // Numbers go in in order and the map keeps insertion order: its first key is the oldest unfinished event.
    const oldest = this.unfinished.keys().next().value ?? Infinity;
    const ready = this.settledWaiters.filter((waiter) => waiter.upTo < oldest);
    this.settledWaiters = this.settledWaiters.filter((waiter) => waiter.upTo >= oldest);
    ready.forEach((waiter) => waiter.resolve());
  }

  /**
   * An event EventBridge matched but could not put on the rule's queue: lost to that target, as in AWS
   * (where only EventBridge's own FailedInvocations metric counts it). Kept here and logged.
   */
  private undeliverable(rule: EventRule, event: BusEvent, bytes: number): void {
    const error = `InvalidParameterValue: One or more parameters are invalid. Reason: Message must be shorter than ${sqsMaxMessageBytes} bytes. (${bytes} bytes)`;
    this.failedInvocations.push({ rule: rule.name, event, error, attempts: 1, failedAt: new Date().toISOString() });
    logger.error('event not delivered to its rule target', { rule: rule.name, eventId: event.id, detailType: event['detail-type'], error });
  }

  /** Resolves when every accepted event has been delivered or dead-lettered (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.deliveries.size > 0) await Promise.allSettled([...this.deliveries]);
  }

  /** Refuses new entries, cuts pending retry pauses short and waits for deliveries to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.idle();
  }

  private track(delivery: Promise<void>): void {
    this.deliveries.add(delivery);
    void delivery.finally(() => this.deliveries.delete(delivery));
  }

  /**
   * Queued for the rule's target as SQS would queue it. Messages queued in the same turn of the
   * event loop (one publish of the stream's batch, say) are handed over together, up to the
   * event source mapping's batch size per invocation, the invocations side by side.
   */
  private enqueue(rule: EventRule, message: QueuedMessage): void {
    let queue = this.queues.get(rule.name);
    if (!queue) this.queues.set(rule.name, (queue = { rule, waiting: [] }));
    queue.waiting.push(message);
    if (queue.waiting.length > 1) return;
    const target = queue;
    this.track(
      new Promise<void>((handedOver) =>
        setImmediate(() => {
          for (const batch of chunks(target.waiting.splice(0), queueBatchSize)) this.track(this.deliver(target.rule, batch));
          handedOver();
        }),
      ),
    );
  }

  private async deliver(rule: EventRule, batch: QueuedMessage[]): Promise<void> {
    let failed: Set<string>;
    let error = 'the target reported the message as failed';
    try {
      const handler = await this.handler(rule.target);
      // EventBridge → the rule's queue → its consumer, each as the deployed stage allows (lib/local/grants).
      localGrants()?.checkRuleDelivery(rule.name, rule.target);
      const result = await invokeAs(rule.target, () => handler({ Records: batch.map((message) => sqsRecord(rule, message)) }));
      failed = new Set((result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch (thrown) {
      // A target that throws fails its whole batch, as a Lambda error returns every message to the queue.
      failed = new Set(batch.map((message) => message.messageId));
      error = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
    }
    for (const message of batch) {
      if (!failed.has(message.messageId)) {
        this.finished(rule, message);
        continue;
      }
      logger.warn('event delivery failed', { rule: rule.name, eventId: message.event.id, attempt: message.attempt, error });
      this.track(this.retry(rule, { ...message, lastError: error }));
    }
  }

  /** After the visibility timeout the message is received again, until maxAttempts; then the dead-letter queue. */
  private async retry(rule: EventRule, message: QueuedMessage): Promise<void> {
    if (message.attempt < this.maxAttempts && !this.stopping.signal.aborted) {
      await pause(this.retryDelayMs, this.stopping.signal);
      if (!this.stopping.signal.aborted) return this.enqueue(rule, { ...message, attempt: message.attempt + 1 });
    }
    const deadLetter: DeadLetter = {
      rule: rule.name,
      event: message.event,
      error: message.lastError || 'the bus stopped before delivery',
      attempts: this.maxAttempts,
      failedAt: new Date().toISOString(),
    };
    this.deadLetters.push(deadLetter);
    this.finished(rule, message);
    count('EventDeadLettered', { rule: rule.name });
    logger.error('event dead-lettered', { rule: rule.name, eventId: message.event.id, detailType: message.event['detail-type'], error: deadLetter.error });
  }

  private handler(target: string): Promise<SqsHandler> {
    let loaded = this.handlers.get(target);
    if (!loaded) {
      loaded = import(pathToFileURL(resolve(projectRoot, target)).href).then((module: { handler?: unknown }) => {
        if (typeof module.handler !== 'function') throw new Error(`${target} exports no handler`);
        return module.handler as SqsHandler;
      });
      // A failed import is retried on the next delivery rather than cached forever.
      loaded.catch(() => this.handlers.delete(target));
      this.handlers.set(target, loaded);
    }
    return loaded;
  }
}

interface QueuedMessage {
  /** The accepted event's number (the same for every rule and attempt). */
  number: number;
  messageId: string;
  event: BusEvent;
  body: string;
  sentAt: number;
  /** This delivery's number: SQS's ApproximateReceiveCount. */
  attempt: number;
  lastError: string;
}

function sqsRecord(rule: EventRule, { messageId, event, body, sentAt, attempt }: QueuedMessage): SQSEvent['Records'][number] {
  return {
    messageId,
    receiptHandle: `${messageId}#${attempt}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(attempt),
      SentTimestamp: String(sentAt),
      SenderId: localAccount,
      ApproximateFirstReceiveTimestamp: String(sentAt),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${event.region}:${localAccount}:${rule.name}`,
    awsRegion: event.region,
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal.aborted) return done();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });
}

// ---- EventBridge pattern matching (the subset the rules use) ------------------------------

const supportedOperators = new Set(['prefix', 'anything-but', 'exists']);

/** Throws on what EventBridge would refuse or what this bus does not implement. */
export function validatePattern(pattern: EventPattern, where = 'pattern'): void {
  if (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern)) {
    throw new Error(`${where}: a pattern is an object`);
  }
  for (const [field, condition] of Object.entries(pattern)) {
    const path = `${where}.${field}`;
    if (Array.isArray(condition)) {
      if (condition.length === 0) throw new Error(`${path}: an empty array matches nothing`);
      for (const matcher of condition) validateMatcher(matcher, path);
    } else if (typeof condition === 'object' && condition !== null) {
      validatePattern(condition as EventPattern, path);
    } else {
      throw new Error(`${path}: a leaf must be an array of values or matchers`);
    }
  }
}

function validateMatcher(matcher: unknown, path: string): void {
  if (matcher === null || ['string', 'number', 'boolean'].includes(typeof matcher)) return;
  if (typeof matcher !== 'object' || Array.isArray(matcher)) throw new Error(`${path}: unsupported matcher`);
  const entries = Object.entries(matcher as Record<string, unknown>);
  const [operator, operand] = entries[0] ?? [];
  if (entries.length !== 1 || !operator || !supportedOperators.has(operator)) {
    throw new Error(`${path}: unsupported matcher ${JSON.stringify(matcher)} (the local bus knows ${[...supportedOperators].join(', ')})`);
  }
  if (operator === 'prefix' && typeof operand !== 'string') throw new Error(`${path}: prefix takes a string`);
  if (operator === 'exists' && typeof operand !== 'boolean') throw new Error(`${path}: exists takes a boolean`);
  if (operator === 'anything-but') {
    const ok =
      isScalar(operand) ||
      (Array.isArray(operand) && operand.length > 0 && operand.every(isScalar)) ||
      (isPlainObject(operand) && Object.keys(operand).length === 1 && typeof operand.prefix === 'string');
    if (!ok) throw new Error(`${path}: anything-but takes a value, a list of values or {prefix}`);
  }
}

/**
 * EventBridge semantics: every field of the pattern must match (AND); a leaf array matches
 * when any of its entries matches (OR); an array in the event matches when any of its
 * elements does; a nested object descends into the event's object; an absent field matches
 * only `{exists: false}`.
 */
export function matchesPattern(pattern: EventPattern, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([field, condition]) => {
    const value = event[field];
    if (Array.isArray(condition)) return matchesLeaf(condition, value);
    if (value === undefined) return matchesPattern(condition as EventPattern, {});
    return isPlainObject(value) && matchesPattern(condition as EventPattern, value);
  });
}

function matchesLeaf(matchers: unknown[], value: unknown): boolean {
  return matchers.some((matcher) => {
    if (isPlainObject(matcher) && 'exists' in matcher) return (value !== undefined) === matcher.exists;
    if (value === undefined) return false;
    const candidates = Array.isArray(value) ? value : [value];
    return candidates.some((candidate) => matchesValue(matcher, candidate));
  });
}

function matchesValue(matcher: unknown, value: unknown): boolean {
  if (!isPlainObject(matcher)) return matcher === value;
  if ('prefix' in matcher) return typeof value === 'string' && value.startsWith(matcher.prefix as string);
  if ('anything-but' in matcher) {
    const excluded = matcher['anything-but'];
    if (isPlainObject(excluded)) return !(typeof value === 'string' && value.startsWith(excluded.prefix as string));
    const list = Array.isArray(excluded) ? excluded : [excluded];
    return !list.includes(value);
  }
  return false;
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
