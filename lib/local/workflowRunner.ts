import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type RunOptions,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';
import pMap, { pMapSkip } from 'p-map';
import { ExecutionAlreadyExists, type HistoryEventType, type StartExecutionOutput } from '@aws-sdk/client-sfn';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StartResult, WorkflowEngine } from '#platform/workflow.ts';
import { logger } from '#platform/logger.ts';
import { dynamo, tableName } from '#store/client.ts';
import {
  claimExecution,
  createExecution,
  finishExecution,
  getExecution,
  listRunningExecutions,
  outputFits,
  recordEvents,
  renewLease,
  type ExecutionOwner,
  type ExecutionRecord,
  type ExecutionStatus,
  type StoredHistoryEvent,
} from '#store/executions.ts';
import { keys } from '#store/keys.ts';
import { workflows as registry, type WorkflowDefinition } from '#contract/workflows.ts';
import { workflowDefinition } from '#contract/taskRetryPolicy.ts';
import { invokeAs, localGrants } from './grants/enforcement.ts';
import { processAlive } from './processAlive.ts';
import { stateMachineOf } from './validatedDefinitions.ts';
import { checkExecutionInput, checkExecutionName, historyEventsLimit, historyLimitReached, measurePayload, TerminalStateError, utf8Bytes } from './stepFunctionsLimits.ts';

/**
 * Step Functions on this machine. Runs the very definitions the CDK deploys (each ASL file with
 * the task policy, functions/contract/taskRetryPolicy.ts workflowDefinition), with each Task
 * state calling the task handler its `${Placeholder}` names in the registry, answered in the
 * shape `lambda:invoke` gives (`{Payload, StatusCode}`) so the same paths work. A task's
 * thrown error reaches Retry and Catch under the error's `name`, as Lambda reports it.
 *
 * Every execution is recorded in the table (functions/store/executions.ts): the conditional
 * Put keeps a second start of the same name on the same workflow from running anything, and it is
 * answered as Step Functions answers it (decision 100): the same input while the first runs is a
 * success naming that execution and its start; other input, or a finished execution, is
 * ExecutionAlreadyExists. Step Functions' quotas on payloads and history hold here as there
 * (lib/local/stepFunctionsLimits.ts, decision 101). The record's owner and lease let a later
 * process re-drive what a crashed one left RUNNING. A re-drive starts over from StartAt with
 * the same input, which is safe because every task is idempotent. The engine's events are kept
 * on the record in GetExecutionHistory's shape, so `admin ops history` reads either engine alike.
 *
 * Wait states wait what their path says: no override. Tasks answer short waits locally through
 * WAIT_MAX_SECONDS (functions/platform/workflow.ts workflowWait), so a bad value fails here as in AWS.
 */
export interface LocalWorkflowRunnerOptions {
  /** Every Retry pauses this many milliseconds between attempts instead of its own interval. */
  retryIntervalOverrideMs?: number;
  /** How long an owner's claim on an execution lasts without renewal; renewed at a third of it. */
  leaseMs?: number;
  /**
   * Also sweep for abandoned executions this often, not only when resumeUnfinished() is called:
   * picks up what another process on the same table (an admin CLI run, a second `npm start`)
   * left behind when it died. Off unless set.
   */
  resumeIntervalMs?: number;
  /** The workflow registry; functions/contract/workflows.ts unless told otherwise. */
  workflows?: Record<string, WorkflowDefinition>;
}

export interface ExecutionOutcome {
  name: string;
  status: ExecutionStatus;
  output?: unknown;
  error?: string;
  cause?: string;
  drives: number;
  /** States the final drive went through. */
  history: string[];
}

interface LoadedWorkflow {
  machine: StateMachine;
  overrides: NonNullable<RunOptions['overrides']>;
}

interface Running {
  name: string;
  done: Promise<void>;
  abort: () => void;
  currentState?: string;
  workflow: string;
  /** States entered, in order: recorded with the outcome, so a failure shows the path it took. */
  history: string[];
  /** The execution's history events so far, Step Functions' shape, at most maxRecordedEvents. */
  events: StoredHistoryEvent[];
  droppedEvents: number;
  /** Writes of `events`, one after another so an older one never lands last. */
  recording: Promise<unknown>;
  /** Set while the execution is at a Wait: records the history if it is still there a second later. */
  atWait?: NodeJS.Timeout;
  /** What this runner knows of the execution, to answer a repeated start; marked finished once recorded so. */
  known: KnownExecution;
  /** A quota crossed: the execution fails with it, whatever the engine does next. */
  terminal?: TerminalStateError;
  /** The largest state input, output or task payload so far, in UTF-8 bytes. */
  largestPayloadBytes: number;
  /** Drives of the execution, this one included, as its record counts them. */
  drives: number;
}

/** An execution this runner started, or found started: enough to answer a repeated start without the table. */
interface KnownExecution {
  inputJson: string;
  startDate: Date;
  finished: boolean;
}

/** A name once taken: by this call (created), or already, by an execution running or not. */
interface TakenName {
  created: boolean;
  running: boolean;
  known: KnownExecution;
}

/** StartExecution's answer, and whether this call is the one that created the execution. */
type StartAnswer = Required<Pick<StartExecutionOutput, 'executionArn' | 'startDate'>> & { created: boolean };

const recordAtWaitAfterMs = 1000;
/** Abandoned executions read and claimed at once by a pass of resumeUnfinished. */
const resumeConcurrency = 8;
const namesKept = 20_000;

function alreadyExists(executionName: string, workflow: string): ExecutionAlreadyExists {
  return new ExecutionAlreadyExists({ $metadata: {}, message: `Execution Already Exists: '${executionName}' (${workflow})` });
}

/** Bounds of the history kept per execution (an item holds at most 400 KB). */
const maxRecordedEvents = 400;
const maxRecordedChars = 1000;

type TaskHandler = (input: unknown) => Promise<unknown>;

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const lambdaInvoke = 'arn:aws:states:::lambda:invoke';

/** Runner instances alive in this process: an owner of this pid that is not here has stopped. */
const liveRunners = new Set<string>();

export class LocalWorkflowRunner implements WorkflowEngine {
  readonly owner: ExecutionOwner = { id: randomUUID(), host: hostname(), pid: process.pid };
  private readonly options: LocalWorkflowRunnerOptions;
  private readonly registry: Record<string, WorkflowDefinition>;
  private readonly leaseMs: number;
  private readonly loaded = new Map<string, Promise<LoadedWorkflow>>();
  private readonly running = new Map<string, Running>();
  /**
   * Names this runner has started or is starting, newest last (at most namesKept): each resolves
   * to what is known of the execution once the name is taken (created, or found taken), undefined
   * when the attempt failed.
   */
  private readonly names = new Map<string, Promise<KnownExecution | undefined>>();
  /**
   * Outcomes this runner recorded, by execution name, newest last (at most namesKept): what waitFor
   * answers without reading the record back. A name is one execution's (names carry the operation's
   * kind and id, and a finished execution never runs again).
   */
  private readonly ended = new Map<string, { workflow: string; outcome: ExecutionOutcome }>();
  /** States entered by every execution of this runner (what Step Functions Standard bills as transitions); read by the bench. */
  stateTransitions = 0;
  private stopped = false;
  private sweeping: Promise<unknown> | undefined;
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(options: LocalWorkflowRunnerOptions = {}) {
    this.options = options;
    this.registry = options.workflows ?? registry;
    this.leaseMs = options.leaseMs ?? 30_000;
    liveRunners.add(this.owner.id);
    if (options.resumeIntervalMs) {
      this.sweeper = setInterval(() => {
        if (this.sweeping) return;
        this.sweeping = this.resumeUnfinished()
          .catch((error: unknown) => logger.warn('sweep for abandoned executions failed', { error: error as Error }))
          .finally(() => (this.sweeping = undefined));
      }, options.resumeIntervalMs);
      this.sweeper.unref();
    }
  }

  /** The port: `started` only for the call that created the execution; a repeat of any kind is not a start. */
  async start(workflow: string, executionName: string, input: Record<string, unknown>): Promise<StartResult> {
    try {
      const { created } = await this.startOrRepeat(workflow, executionName, input);
      return { executionName, started: created };
    } catch (error) {
      if (error instanceof ExecutionAlreadyExists) return { executionName, started: false };
      throw error;
    }
  }

  /**
   * StartExecution as Step Functions answers it: an input over 256 KiB is ValidationException; a
   * name the workflow has used is a success naming the first execution and its startDate while it
   * runs with the same input, and ExecutionAlreadyExists once it has finished or for other input.
   */
  async startExecution(workflow: string, executionName: string, input: Record<string, unknown>): Promise<StartExecutionOutput> {
    const { executionArn, startDate } = await this.startOrRepeat(workflow, executionName, input);
    return { executionArn, startDate };
  }

  private async startOrRepeat(workflow: string, executionName: string, input: Record<string, unknown>): Promise<StartAnswer> {
    if (this.stopped) throw new Error('The workflow runner is stopped.');
    checkExecutionName(executionName);
    // What a Lambda would receive is JSON, as StartExecution's `input` is: anything that does not survive that fails here.
    const inputJson = JSON.stringify(input);
    checkExecutionInput(inputJson);
    // A name this runner created, or is creating, is answered without a Put of its own (the
    // outbox's safety-net start of every operation comes moments after, or while, its first
    // start). An earlier attempt that failed leaves the name to the next one.
    const key = runKey(workflow, executionName);
    for (let earlier = this.names.get(key); earlier; earlier = this.names.get(key)) {
      const known = await earlier;
      if (known) return repeatAnswer(workflow, executionName, inputJson, known, await this.stillRunning(workflow, executionName, known));
    }
    let settle!: (known: KnownExecution | undefined) => void;
    this.names.set(key, new Promise((resolve) => (settle = resolve)));
    if (this.names.size > namesKept) this.names.delete(this.names.keys().next().value!);
    let taken: TakenName;
    try {
      taken = await this.createOrRead(workflow, executionName, inputJson);
    } catch (error) {
      this.names.delete(key);
      settle(undefined);
      throw error;
    }
    settle(taken.known);
    if (taken.created) return { executionArn: executionArn(workflow, executionName), startDate: taken.known.startDate, created: true };
    return repeatAnswer(workflow, executionName, inputJson, taken.known, taken.running);
  }

  /** Creates and launches the execution; when the name is taken already (another process), reads what took it. */
  private async createOrRead(workflow: string, executionName: string, inputJson: string): Promise<TakenName> {
    // Load first: a broken definition must refuse the start, not leave a RUNNING record behind.
    await this.load(workflow);
    injectedFault(workflow);
    // The history's first event goes in with the record: a crash before anything else is recorded
    // still leaves a history that begins where Step Functions' does.
    const now = new Date();
    const events: StoredHistoryEvent[] = [{ id: 1, timestamp: now.toISOString(), type: 'ExecutionStarted', executionStartedEventDetails: {} }];
    const leaseExpiresAt = now.getTime() + this.leaseMs;
    if (await createExecution({ name: executionName, workflow, inputJson, owner: this.owner, leaseExpiresAt, events, now })) {
      const known = { inputJson, startDate: now, finished: false };
      this.launch(executionName, workflow, known, events, 0, 1);
      return { created: true, running: true, known };
    }
    const record = await getExecution(executionName, workflow);
    if (!record) throw new Error(`The execution ${executionName} of ${workflow} exists and cannot be read.`);
    const running = record.status === 'RUNNING';
    return { created: false, running, known: { inputJson: record.inputJson, startDate: new Date(record.startedAt), finished: !running } };
  }

  /** Whether a known execution still runs: from memory when this runner drives it or saw it end, else from its record. */
  private async stillRunning(workflow: string, executionName: string, known: KnownExecution): Promise<boolean> {
    if (this.running.has(runKey(workflow, executionName))) return true;
    if (known.finished) return false;
    const record = await getExecution(executionName, workflow);
    known.finished = record?.status !== 'RUNNING';
    return !known.finished;
  }

  /** The execution's history (GetExecutionHistory's events, oldest first), or undefined when there is no such execution. */
  async history(workflow: string, executionName: string): Promise<StoredHistoryEvent[] | undefined> {
    const record = await getExecution(executionName, workflow);
    return record ? (record.events ?? []) : undefined;
  }

  /**
   * Re-drives every RUNNING execution whose owner is gone: its lease ran out, or it belonged to
   * a process on this host that no longer exists (or to a runner of this process that stopped).
   * Answers the names taken over.
   */
  async resumeUnfinished(): Promise<string[]> {
    if (this.stopped) return [];
    const started = Date.now();
    const listed = (await listRunningExecutions()).filter(({ name, workflow }) => !this.running.has(runKey(workflow, name)));
    // Several records at a time: after a kill there are hundreds, and read and claimed one by one
    // under the load of those already re-driven, a pass outlasted the next kill; every restart then
    // took the same head of the list and the rest stayed abandoned (a chaos run's lost payments:
    // lease expired minutes before, never re-driven).
    const resumed = await pMap(listed, async ({ name, workflow }) => (!this.stopped && (await this.takeOver(name, workflow)) ? name : pMapSkip), { concurrency: resumeConcurrency });
    if (resumed.length > 0) logger.info('workflow executions re-driven', { count: resumed.length, listed: listed.length, ms: Date.now() - started });
    return resumed;
  }

  /** Claims one RUNNING execution whose owner is gone and drives it on; false when it is not to be taken. */
  private async takeOver(name: string, workflow: string): Promise<boolean> {
    if (this.running.has(runKey(workflow, name))) return false;
    const record = await getExecution(name, workflow);
    if (!record || record.status !== 'RUNNING' || !ownerGone(record)) return false;
    // The start's pass and the sweep's may read the same record side by side: the conditional claim lets one drive it.
    if (!(await claimExecution(record, this.owner, Date.now() + this.leaseMs))) return false;
    logger.info('workflow execution re-driven', { executionName: name, workflow: record.workflow, previousOwner: record.owner });
    // The history goes on where the dead owner last recorded it, marked as Step Functions marks a redrive.
    const events = [...(record.events ?? [])];
    events.push({ id: events.length + 1, timestamp: new Date().toISOString(), type: 'ExecutionRedriven', executionRedrivenEventDetails: { redriveCount: record.drives } });
    const known = { inputJson: record.inputJson, startDate: new Date(record.startedAt), finished: false };
    this.names.set(runKey(workflow, name), Promise.resolve(known));
    // The claim added this drive to the record's count.
    this.launch(name, record.workflow, known, events, record.droppedEvents ?? 0, record.drives + 1);
    return true;
  }

  async reachable(): Promise<boolean> {
    if (this.stopped) return false;
    try {
      await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.execution('health-probe', 'health') }));
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves when no execution is running in this runner. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((run) => run.done));
  }

  /**
   * Aborts what is running. The records stay RUNNING, owned by a runner that is gone, so the
   * next runner's resumeUnfinished() re-drives them: a stop is a crash the tests can cause. Unlike
   * a crash, a stopped runner knows it has stopped: it ends its leases now, so a runner of another
   * process takes its executions up at its next sweep rather than once the lease runs out while
   * this process lives on (the ops CLI's and the chaos harness's runners, stopped after their call).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    await this.sweeping;
    liveRunners.delete(this.owner.id);
    const aborted = [...this.running.values()];
    for (const run of aborted) run.abort();
    await this.idle();
    // Conditional on this owner and RUNNING: one that finished, or was taken over, is left alone.
    const ended = await Promise.allSettled(aborted.map((run) => renewLease(run.name, run.workflow, this.owner.id, Date.now())));
    const failed = ended.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as Error] : []));
    // Not ended: the leases run out as after a crash; nothing else is lost.
    if (failed.length > 0) logger.warn('workflow leases not ended at stop', { count: failed.length, error: failed[0] });
  }

  /** The state an execution of this runner is in now (tests wait for a Wait state with it). */
  currentState(executionName: string): string | undefined {
    return this.runningNamed(executionName)?.currentState;
  }

  private runningNamed(executionName: string): Running | undefined {
    return [...this.running.values()].find((run) => run.name === executionName);
  }

  /**
   * The final outcome of an execution: as this runner recorded it, else from the table; throws when
   * it is still running at the deadline.
   */
  async waitFor(executionName: string, timeoutMs = 30_000, workflow?: string): Promise<ExecutionOutcome> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const local = this.runningNamed(executionName);
      if (local) await Promise.race([local.done, pause(Math.max(0, deadline - Date.now()))]);
      const ended = this.ended.get(executionName);
      if (ended && (!workflow || ended.workflow === workflow)) return ended.outcome;
      const record = await getExecution(executionName, workflow);
      if (!record) throw new Error(`No execution named ${executionName}.`);
      if (record.status !== 'RUNNING') {
        return {
          name: record.name,
          status: record.status,
          drives: record.drives,
          history: record.history ?? [],
          ...(record.output !== undefined ? { output: record.output } : {}),
          ...(record.error ? { error: record.error, cause: record.cause } : {}),
        };
      }
      if (Date.now() >= deadline) throw new Error(`Execution ${executionName} is still running after ${timeoutMs} ms.`);
      await pause(Math.min(50, Math.max(0, deadline - Date.now())));
    }
  }

  /** The outcome as its record now reads (finishExecution): its output only where the record keeps it. */
  private remember(name: string, workflow: string, run: Running, outcome: Parameters<typeof finishExecution>[3]): void {
    this.ended.delete(name);
    this.ended.set(name, {
      workflow,
      outcome: {
        name,
        status: outcome.status,
        drives: run.drives,
        history: run.history,
        ...(outcome.status === 'SUCCEEDED'
          ? outputFits(outcome.output) ? { output: outcome.output ?? null } : {}
          : { error: outcome.error, cause: outcome.cause }),
      },
    });
    if (this.ended.size > namesKept) this.ended.delete(this.ended.keys().next().value!);
  }

  private launch(name: string, workflow: string, known: KnownExecution, events: StoredHistoryEvent[], droppedEvents: number, drives: number): void {
    const controller = new AbortController();
    const run: Running = {
      name,
      workflow,
      done: Promise.resolve(),
      abort: () => controller.abort(),
      history: [],
      events,
      droppedEvents,
      recording: Promise.resolve(),
      known,
      largestPayloadBytes: utf8Bytes(known.inputJson),
      drives,
    };
    const key = runKey(workflow, name);
    const input = JSON.parse(known.inputJson) as Record<string, unknown>;
    run.done = this.drive(name, workflow, input, controller, run).finally(() => this.running.delete(key));
    this.running.set(key, run);
  }

  private async drive(
    name: string,
    workflow: string,
    input: Record<string, unknown>,
    controller: AbortController,
    run: Running,
  ): Promise<void> {
    let lostOwnership = false;
    // Set once the outcome is being written: a renewal refused after that is our own finish.
    let finishing = false;
    // One renewal at a time: on a saturated table, renewals sent on every tick would queue up behind
    // each other (hundreds of executions, each a write every leaseMs/3) and add to the load that delays them.
    let renewing = false;
    const heartbeat = setInterval(() => {
      if (renewing) return;
      renewing = true;
      renewLease(name, workflow, this.owner.id, Date.now() + this.leaseMs)
        .finally(() => (renewing = false))
        .then((renewed) => {
          if (renewed || finishing || controller.signal.aborted) return;
          // Someone else holds it now (we were presumed dead): stop, and leave it to them.
          lostOwnership = true;
          logger.warn('workflow execution taken over by another runner', { executionName: name });
          controller.abort();
        })
        .catch((error: unknown) => logger.warn('workflow lease renewal failed', { executionName: name, error: error as Error }));
    }, Math.max(10, Math.floor(this.leaseMs / 3)));
    heartbeat.unref();

    try {
      const { machine, overrides } = await this.load(workflow);
      const execution = machine.run(input as Parameters<StateMachine['run']>[0], {
        overrides: { ...overrides, taskResourceLocalHandlers: this.bindTasks(overrides, controller.signal, run) },
        context: {
          Execution: { Id: executionArn(workflow, name), Name: name },
          StateMachine: { Name: workflow },
        },
      });
      controller.signal.addEventListener('abort', () => execution.abort(), { once: true });
      const followed = this.follow(name, workflow, execution.eventLogs, run);

      let outcome: Parameters<typeof finishExecution>[3];
      try {
        outcome = { status: 'SUCCEEDED', output: await execution.result };
      } catch (error) {
        // A quota crossed aborts the engine (run.terminal is set first); a stop leaves the record RUNNING.
        if (error instanceof ExecutionAbortedError && !run.terminal) return;
        outcome = failure(error);
      }
      // A result that arrived before a stop is still ours to record; after a takeover it is not.
      if (lostOwnership) return;
      finishing = true;
      // The event log closes with the outcome; let it catch up so the history is complete.
      await followed;
      if (run.terminal) outcome = endedByQuota(run, run.terminal);
      clearTimeout(run.atWait);
      await run.recording;
      const recorded = await finishExecution(name, workflow, this.owner.id, outcome, run.history, {
        events: run.events,
        droppedEvents: run.droppedEvents,
        largestPayloadBytes: run.largestPayloadBytes,
      });
      if (recorded) {
        run.known.finished = true;
        this.remember(name, workflow, run, outcome);
      }
      if (!recorded) logger.warn('workflow outcome not recorded: no longer the owner', { executionName: name });
      else if (outcome.status === 'FAILED') logger.warn('workflow execution failed', { executionName: name, workflow, error: outcome.error });
    } catch (error) {
      // The runner itself broke (definition unreadable, table unreachable): the record stays
      // RUNNING and the next resumeUnfinished() after the lease tries again.
      logger.error('workflow execution could not be driven', { executionName: name, workflow, error: error as Error });
    } finally {
      clearInterval(heartbeat);
      clearTimeout(run.atWait);
    }
  }

  /**
   * Task state name → its handler, each guarded so that nothing runs once the execution is aborted,
   * and held to Step Functions' payload quota on both sides: the input after Parameters (the
   * Lambda's `Payload` with its FunctionName) and the result before ResultSelector.
   */
  private bindTasks(overrides: LoadedWorkflow['overrides'], signal: AbortSignal, run: Running) {
    const bound: NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']> = {};
    for (const [stateName, call] of Object.entries(overrides.taskResourceLocalHandlers ?? {})) {
      bound[stateName] = async (input) => {
        // The engine calls a task in the turn it entered the state: let the event follower see the
        // states before it first, so a quota they crossed stops the execution before this runs.
        await nextTurn();
        if (signal.aborted) throw namedError('States.Runtime', 'execution aborted');
        notePayload(run, measurePayload(stateName, JSON.stringify(input), 'input'));
        const result = await call(input);
        notePayload(run, measurePayload(stateName, JSON.stringify(result), 'result'));
        return result;
      };
    }
    return bound;
  }

  private async follow(name: string, workflow: string, events: ReturnType<StateMachine['run']>['eventLogs'], run: Running) {
    try {
      for await (const event of events) {
        // After a quota crossed, the engine's last steps are not the execution's: it ended there.
        if (run.terminal) continue;
        recordEvent(run, event);
        enforceQuotas(run, event);
        clearTimeout(run.atWait);
        // Kept in the table when a task failed and when the execution sits at a Wait (it may sit
        // there long), so `ops history` shows a running or crashed execution up to where it is. A
        // Wait passed within the second is not worth a write: most are, with short local waits.
        const record = () => {
          const snapshot = { events: [...run.events], dropped: run.droppedEvents };
          run.recording = run.recording
            .then(() => recordEvents(name, workflow, this.owner.id, snapshot.events, snapshot.dropped))
            .catch((error: unknown) => logger.warn('workflow history not recorded', { executionName: name, error: error as Error }));
        };
        if (event.type === 'StateFailed') record();
        if (event.type === 'StateEntered' && event.state.type === 'Wait') run.atWait = setTimeout(record, recordAtWaitAfterMs).unref();
        if (event.type === 'StateEntered') {
          this.stateTransitions += 1;
          run.currentState = event.state.name;
          run.history.push(event.state.name);
        }
        if (event.type === 'StateRetried') logger.warn('workflow task retried', { executionName: name, state: event.state.name });
        if (event.type === 'StateFailed') logger.debug('workflow state failed', { executionName: name, state: event.state.name, error: event.Error });
      }
    } catch (error) {
      logger.debug('workflow event log ended', { executionName: name, error: error as Error });
    }
  }

  private load(workflow: string): Promise<LoadedWorkflow> {
    let loading = this.loaded.get(workflow);
    if (!loading) {
      loading = this.loadUncached(workflow);
      loading.catch(() => this.loaded.delete(workflow));
      this.loaded.set(workflow, loading);
    }
    return loading;
  }

  private async loadUncached(workflow: string): Promise<LoadedWorkflow> {
    const entry = this.registry[workflow];
    if (!entry) throw new Error(`Unknown workflow ${workflow}.`);
    const definition = workflowDefinition(entry, projectRoot) as unknown as StateMachineDefinition;
    const overrides: LoadedWorkflow['overrides'] = { taskResourceLocalHandlers: {}, waitTimeOverrides: {}, retryIntervalOverrides: {} };

    for (const [stateName, state] of allStates(definition)) {
      if (state.Type === 'Task') {
        overrides.taskResourceLocalHandlers![stateName] = await this.taskHandler(entry, stateName, state);
      }
      if ('Retry' in state && state.Retry && this.options.retryIntervalOverrideMs !== undefined) {
        overrides.retryIntervalOverrides![stateName] = this.options.retryIntervalOverrideMs;
      }
    }
    return { machine: stateMachineOf(definition), overrides };
  }

  private async taskHandler(entry: WorkflowDefinition, stateName: string, state: { Resource?: unknown; Parameters?: unknown }) {
    const functionName = (state.Parameters as { FunctionName?: unknown } | undefined)?.FunctionName;
    const placeholder = typeof functionName === 'string' ? /^\$\{(\w+)\}$/.exec(functionName)?.[1] : undefined;
    if (state.Resource !== lambdaInvoke || !placeholder) {
      throw new Error(
        `${entry.definition}: Task state ${stateName} must be "Resource": "${lambdaInvoke}" with "FunctionName": "\${TaskName}"`,
      );
    }
    const task = entry.tasks[placeholder];
    if (!task) throw new Error(`${entry.definition}: ${stateName} calls \${${placeholder}}, which is not a task of ${entry.name}`);
    const module = (await import(pathToFileURL(resolve(projectRoot, task.handler)).href)) as { handler?: unknown };
    if (typeof module.handler !== 'function') throw new Error(`${task.handler} exports no handler`);
    const handler = module.handler as TaskHandler;

    return async (input: unknown) => {
      // lambda:invoke hands the function `Payload` and answers `{Payload: <its result>, StatusCode}`;
      // both cross a JSON boundary in AWS, so they do here too.
      const payload = JSON.parse(JSON.stringify((input as { Payload?: unknown } | null)?.Payload ?? null)) as unknown;
      let result: unknown;
      try {
        // Step Functions' role must be allowed to invoke the task's function, which runs as deployed (lib/local/grants).
        localGrants()?.checkTaskInvoke(entry.name, placeholder);
        result = await invokeAs(task.handler, () => handler(payload));
      } catch (error) {
        throw lambdaError(error);
      }
      return { Payload: JSON.parse(JSON.stringify(result ?? null)), StatusCode: 200, ExecutedVersion: '$LATEST' };
    };
  }
}

function runKey(workflow: string, name: string): string {
  return `${workflow}\u0000${name}`;
}

function executionArn(workflow: string, name: string): string {
  return `arn:aws:states:local:000000000000:execution:${workflow}:${name}`;
}

/** Step Functions' answer to a start of a name already used: the running execution itself for the same input, else ExecutionAlreadyExists. */
function repeatAnswer(workflow: string, name: string, inputJson: string, known: KnownExecution, running: boolean): StartAnswer {
  if (running && known.inputJson === inputJson) return { executionArn: executionArn(workflow, name), startDate: known.startDate, created: false };
  throw alreadyExists(name, workflow);
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function notePayload(run: Running, bytes: number): void {
  run.largestPayloadBytes = Math.max(run.largestPayloadBytes, bytes);
}

/** Events in the history so far, those dropped from the record included (ids run on). */
function historyLength(run: Running): number {
  return run.events.at(-1)?.id ?? 0;
}

/**
 * Step Functions' quotas on what the engine just did: a state's output past 256 KiB, or a history
 * with no room left but for its closing event. Either ends the execution there: the engine is
 * aborted and the outcome recorded as the quota's failure (endedByQuota).
 */
function enforceQuotas(run: Running, event: LocalEngineEvent): void {
  try {
    if (event.type === 'StateExited') notePayload(run, measurePayload(event.state.name, JSON.stringify(event.state.output ?? null), 'result'));
    if (historyLength(run) >= historyEventsLimit - 1 && !event.type.startsWith('Execution')) throw historyLimitReached();
  } catch (error) {
    if (!(error instanceof TerminalStateError)) throw error;
    run.terminal = error;
    run.abort();
  }
}

/** The failure a quota ended the execution with, closing its history as Step Functions does. */
function endedByQuota(run: Running, error: TerminalStateError): { status: 'FAILED'; error: string; cause: string } {
  appendEvent(run, { type: 'ExecutionFailed', executionFailedEventDetails: { error: error.name, cause: error.message } }, new Date().toISOString());
  return { status: 'FAILED', error: error.name, cause: error.message };
}

/**
 * Fault injection for the crash tests, in this local adapter only: LOCAL_FAULT_BEFORE_START =
 * `kill:<workflow>` SIGKILLs the process, `throw:<workflow>` fails the start, each just before an
 * execution of that workflow would be recorded (the window between an operation's commit and its
 * workflow's start, which the sweeper closes).
 */
function injectedFault(workflow: string): void {
  const [action, target] = (process.env.LOCAL_FAULT_BEFORE_START ?? '').split(':');
  if (target !== workflow) return;
  if (action === 'kill') process.kill(process.pid, 'SIGKILL');
  if (action === 'throw') throw namedError('InjectedFault', `LOCAL_FAULT_BEFORE_START refused this start of ${workflow}`);
}

type LocalEngineEvent = ReturnType<StateMachine['run']>['eventLogs'] extends AsyncIterable<infer E> ? E : never;

/**
 * One event of aws-local-stepfunctions, appended to the history as Step Functions would write it:
 * `<Type>StateEntered/Exited`, and for a Task `TaskScheduled`, `TaskStarted`, then `TaskSucceeded`
 * or `TaskFailed` (a retry is another `TaskScheduled` after the failure, as in AWS). Outputs and causes are cut to
 * maxRecordedChars (`outputDetails.truncated`, as AWS marks a large one); past maxRecordedEvents
 * the oldest after ExecutionStarted are dropped and counted.
 */
function recordEvent(run: Running, event: LocalEngineEvent): void {
  const timestamp = new Date(event.timestamp).toISOString();
  const push = (entry: Omit<StoredHistoryEvent, 'id' | 'timestamp'>) => appendEvent(run, entry, timestamp);
  const task = { resourceType: 'lambda', resource: 'invoke' };
  // lambda:invoke is scheduled, then started, as Step Functions records it (and counts it toward 25,000 events).
  const scheduled = () => {
    push({ type: 'TaskScheduled', taskScheduledEventDetails: { ...task, region: 'local', parameters: '{}' } });
    push({ type: 'TaskStarted', taskStartedEventDetails: task });
  };
  switch (event.type) {
    case 'ExecutionStarted':
      // Recorded with the execution (startExecution); a re-drive starts the engine over after it.
      if (run.events.length === 0) push({ type: 'ExecutionStarted', executionStartedEventDetails: {} });
      return;
    case 'StateEntered':
      push({ type: `${event.state.type}StateEntered` as HistoryEventType, stateEnteredEventDetails: { name: event.state.name } });
      if (event.state.type === 'Task') scheduled();
      return;
    case 'StateRetried':
      if (event.state.type === 'Task') scheduled();
      return;
    case 'StateFailed':
      if (event.state.type === 'Task') push({ type: 'TaskFailed', taskFailedEventDetails: { ...task, error: event.Error, cause: clip(stringify(event.Cause)).text } });
      return;
    case 'StateExited': {
      const output = clip(stringify(event.state.output));
      const details = { output: output.text, ...(output.truncated ? { outputDetails: { truncated: true } } : {}) };
      if (event.state.type === 'Task' && run.events.at(-1)?.type !== 'TaskFailed') push({ type: 'TaskSucceeded', taskSucceededEventDetails: { ...task, ...details } });
      push({ type: `${event.state.type}StateExited` as HistoryEventType, stateExitedEventDetails: { name: event.state.name, ...details } });
      return;
    }
    case 'ExecutionSucceeded':
      push({ type: 'ExecutionSucceeded', executionSucceededEventDetails: {} });
      return;
    case 'ExecutionFailed':
      push({ type: 'ExecutionFailed', executionFailedEventDetails: { error: event.Error, cause: clip(stringify(event.Cause)).text } });
      return;
    case 'ExecutionTimeout':
      push({ type: 'ExecutionTimedOut', executionTimedOutEventDetails: {} });
      return;
    default:
      // ExecutionAborted is a stop of this process, not an end: the record stays RUNNING. Map and
      // Parallel iteration events have no workflow of ours yet.
      return;
  }
}

/** Appends one event; past maxRecordedEvents the oldest after ExecutionStarted is dropped and counted. */
function appendEvent(run: Running, entry: Omit<StoredHistoryEvent, 'id' | 'timestamp'>, timestamp: string): void {
  run.events.push({ ...entry, id: historyLength(run) + 1, timestamp } as StoredHistoryEvent);
  if (run.events.length > maxRecordedEvents) {
    run.events.splice(1, 1);
    run.droppedEvents += 1;
  }
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value ?? null) ?? 'null');
}

function clip(text: string): { text: string; truncated: boolean } {
  return text.length > maxRecordedChars ? { text: text.slice(0, maxRecordedChars), truncated: true } : { text, truncated: false };
}

/** Every state of the machine, nested Parallel branches and Map iterators included (overrides are keyed by name). */
function* allStates(definition: Pick<StateMachineDefinition, 'States'>): Generator<[string, StateMachineDefinition['States'][string]]> {
  for (const [name, state] of Object.entries(definition.States)) {
    yield [name, state];
    if (state.Type === 'Parallel') for (const branch of state.Branches) yield* allStates(branch);
    if (state.Type === 'Map') {
      const processor = state.ItemProcessor ?? state.Iterator;
      if (processor) yield* allStates(processor);
    }
  }
}

/** As Lambda reports a function error: the error type is the error's name; the cause is its JSON. */
function lambdaError(error: unknown): Error {
  const errorType = error instanceof Error ? error.name : 'Error';
  const errorMessage = error instanceof Error ? error.message : String(error);
  return namedError(errorType, JSON.stringify({ errorType, errorMessage }));
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

function failure(error: unknown): { status: 'FAILED'; error: string; cause: string } {
  if (error instanceof ExecutionTimeoutError) return { status: 'FAILED', error: 'States.Timeout', cause: 'The execution timed out.' };
  if (error instanceof ExecutionError && error.cause instanceof Error) {
    return { status: 'FAILED', error: error.cause.name, cause: error.cause.message };
  }
  return { status: 'FAILED', error: 'States.Runtime', cause: error instanceof Error ? error.message : String(error) };
}

function ownerGone(record: ExecutionRecord): boolean {
  if (record.leaseExpiresAt <= Date.now()) return true;
  if (record.owner.host !== hostname()) return false;
  if (record.owner.pid === process.pid) return !liveRunners.has(record.owner.id);
  return !processAlive(record.owner.pid);
}

function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
