import { logger } from '#platform/logger.ts';
import { OperationNotFound } from './errors.ts';
import { callProvider, type ProviderCall } from './providerCall.ts';

/**
 * One shape for the steps of every money-moving operation's workflow. A step loads the operation,
 * acts only from the status it expects, and moves it on with ONE conditional write that carries
 * its ledger movement and its outbox event. A step delivered twice, or re-driven after a crash,
 * finds the status already moved and answers the outcome that status means; a write that lost a
 * race answers the outcome of where the winner put it. Nothing here knows a store: each operation
 * gives its own `find` and `write` (payments keep their transaction items, the others the
 * operation items of functions/store/operations.ts: ./storedOperation.ts); every write goes
 * through the kit's one ledger write (./ledgerWrite.ts). Calling a provider is ./providerCall.ts,
 * polling one ./poll.ts.
 */

/** How a step names its operation: the organization and the id under its workflow's `idField` (functions/contract/workflows.ts). */
export type OperationRef<IdField extends string> = { organizationId: string } & { [K in IdField]: string };

/** What a step answers the workflow: the outcome its `After<Step>` Choice routes on, and how long the next Wait lasts. */
export interface StepResult<O extends string> {
  outcome: O;
  waitSeconds?: number;
  /** For the support reader of the history: what the step did, in a line (a workflow that selects it always gets one). */
  report?: string;
  /**
   * The least the next Wait lasts even where simulated waits are capped (WAIT_MAX_SECONDS): for a
   * step that polls something moving by itself (a batch's items), which must not spin meanwhile.
   */
  floorWaitSeconds?: number;
}

export interface ProgressSpec<Ref, R, S extends string, O extends string, T> {
  /** How the operation is named in logs and errors ("payment"). */
  noun: string;
  idOf(ref: Ref): string;
  refOf(record: R): Ref;
  find(ref: Ref): Promise<R | undefined>;
  statusOf(record: R): S;
  /** The one conditional write: the status, its ledger movement and its event together; undefined when the record had moved on. */
  write(record: R, transition: T): Promise<R | undefined>;
  /** What an operation already where it is (its status, and a fact or two of the record) means for the workflow. */
  outcomeOf(record: R): O;
}

export interface OperationProgress<Ref, R, S extends string, O extends string, T> {
  noun: string;
  idOf(ref: Ref): string;
  statusOf(record: R): S;
  /** The operation, or OperationNotFound. */
  load(ref: Ref): Promise<R>;
  /** The operation as it now is (after a write that found it moved on). */
  reload(record: R): Promise<R>;
  /** Runs `act` only when the operation is in one of `expected`; otherwise answers what its status means. */
  from(ref: Ref, expected: readonly S[], act: (record: R) => Promise<StepResult<O>>): Promise<StepResult<O>>;
  /** The operation's one conditional write: the operation as written, or undefined when it had moved on. */
  write(record: R, transition: T): Promise<R | undefined>;
  /** One conditional move; the operation as it now is (reloaded when another delivery moved it first). */
  move(record: R, transition: T): Promise<R>;
  /** `move`, answered as the outcome of where the operation now is. */
  settle(record: R, transition: T, wait?: { waitSeconds: number }): Promise<StepResult<O>>;
  /**
   * The workflow's Catch: anything it did not expect parks a running operation for a person, funds
   * where they are (held stays held), never guessed. An operation no longer running is left alone.
   */
  park(ref: Ref & { error?: unknown }, running: readonly S[], parked: (record: R) => T): Promise<StepResult<O>>;
  outcomeOf(record: R): StepResult<O>;
  /** A call that cannot be taken back, and the one move its answer (or its silence) means (./providerCall.ts). */
  callProvider<A>(record: R, call: ProviderCall<T, O, A>): Promise<StepResult<O>>;
}

export function operationProgress<Ref, R, S extends string, O extends string, T>(
  spec: ProgressSpec<Ref, R, S, O, T>,
): OperationProgress<Ref, R, S, O, T> {
  const outcomeOf = (record: R): StepResult<O> => ({ outcome: spec.outcomeOf(record) });
  async function load(ref: Ref): Promise<R> {
    const record = await spec.find(ref);
    if (!record) throw new OperationNotFound(spec.noun, spec.idOf(ref));
    return record;
  }
  const reload = (record: R) => load(spec.refOf(record));
  async function move(record: R, transition: T): Promise<R> {
    return (await spec.write(record, transition)) ?? (await reload(record));
  }
  const progress: OperationProgress<Ref, R, S, O, T> = {
    noun: spec.noun,
    idOf: spec.idOf,
    statusOf: spec.statusOf,
    load,
    reload,
    write: (record, transition) => spec.write(record, transition),
    move,
    outcomeOf,
    async from(ref, expected, act) {
      const record = await load(ref);
      return expected.includes(spec.statusOf(record)) ? act(record) : outcomeOf(record);
    },
    async settle(record, transition, wait) {
      return { ...outcomeOf(await move(record, transition)), ...wait };
    },
    async park(ref, running, parked) {
      const record = await load(ref);
      const status = spec.statusOf(record);
      if (!running.includes(status)) return outcomeOf(record);
      logger.error(`${spec.noun} parked after an unexpected workflow error`, { id: spec.idOf(ref), status, error: ref.error });
      return outcomeOf(await move(record, parked(record)));
    },
    callProvider: (record, call) => callProvider(progress, record, call),
  };
  return progress;
}
