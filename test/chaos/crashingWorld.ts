import { rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { useWorkflowEngine } from '#platform/workflow.ts';
import { workflows } from '#contract/workflows.ts';
import { getExecution, listRunningExecutions } from '#store/executions.ts';
import { getBatch, readBatchCounts } from '#store/batches.ts';
import { crashableService } from '../support/crash.ts';
import { memoryRoot, runDataDir } from '../support/runData.ts';
import { until } from '../support/eventually.ts';
import { startReceiver } from '../support/webhookReceiver.ts';
import { chaosOrganization, chaosOutbox, integrator, seededRandom, type InFlight, type World } from './world.ts';

/**
 * The stack as `npm start` runs it, in a child process with its own DynamoDB Local on a DATA_DIR,
 * SIGKILLed (service and DynamoDB Local together, no shutdown code) every few seconds while the
 * workload goes on, and started again on the same DATA_DIR. The workload's requests wait it out
 * (a dropped connection is sent again, with its key); the checks read the table through the same
 * DynamoDB Local once it is back.
 */
export interface CrashingWorldOptions {
  /** Pause between a restart and the next kill, in ms: chosen at random in [min, max). */
  killEveryMs: { min: number; max: number };
  /** Seeded choice of the pauses, so a run replays its rhythm (not its exact moments: the machine's speed varies). */
  seed: number;
  /** Kills after which the stack is left up (default: no end), so the work in flight can finish on it. */
  maxKills?: number;
  /**
   * Kill only while a keeper of the work in flight is registered (keepInFlight): none comes before
   * the backlog it holds up has opened, or after it has let go.
   */
  killsWaitForKeeper?: boolean;
}

/**
 * What a kill cuts short, read from the table just before it: the executions running, and the
 * operations accepted and not yet ended (issue 29's "operations in flight"): each whose own
 * workflow runs (a payment, a withdrawal, ...; not a webhook delivery or a wallet), and each item of
 * a running batch not yet started as a payment (QUEUED in the batch's counts), which the batch's
 * execution will start after the restart.
 */
export async function inFlightOperations(): Promise<{ running: number; operations: number }> {
  const executions = await listRunningExecutions();
  let operations = 0;
  for (const { name, workflow } of executions) {
    if (workflow === 'batch') {
      const record = await getExecution(name, workflow);
      const { organizationId, batchId } = JSON.parse(record?.inputJson ?? '{}') as { organizationId?: string; batchId?: string };
      const batch = organizationId && batchId ? await getBatch(organizationId, batchId) : undefined;
      if (batch) operations += (await readBatchCounts(batch)).QUEUED ?? 0;
    } else if ('operation' in (workflows[workflow as keyof typeof workflows] ?? {})) {
      operations += 1;
    }
  }
  return { running: executions.length, operations };
}

/**
 * Where the killed stack's DynamoDB Local keeps its data: CHAOS_DATA_ROOT, else memory (/dev/shm)
 * where the machine has it, else the temporary directory (docs/decisions/153). A SIGKILL loses
 * nothing a process has handed the kernel, on either; a disk adds only the flushes, which took 40 %
 * of a 1,000-item batch's time here (157 s on disk, 94 s in memory).
 */
function dataRoot(): string {
  return process.env.CHAOS_DATA_ROOT || memoryRoot();
}

/**
 * Requests the stack answers after a restart before the next kill's pause begins (or none waits):
 * proof that a restart works before it is cut short. Each costs the run time (the default run on
 * c54c139 waited a median of 36 s for 50, most of its 16-minute kills phase); 25 prove the same.
 */
const answersBetweenKills = 25;

export async function startCrashingWorld(options: CrashingWorldOptions): Promise<World & { startKilling(): void; stopKilling(): Promise<void>; diedOnItsOwn(): string[] }> {
  const dataDir = runDataDir(dataRoot(), 'chaos-data-');
  const outbox = chaosOutbox();
  const [port, dynamoPort] = [await freePort(), await freePort()];
  const stack = crashableService('chaos', {
    DATA_DIR: dataDir,
    DYNAMODB_LOCAL_PORT: String(dynamoPort),
    // Its own DynamoDB Local, killed with it: not the test run's.
    DYNAMODB_ENDPOINT: '',
    WAIT_MAX_SECONDS: '0',
    // The restart takes over a killed process's executions at once (its pid is gone, or a zombie):
    // the lease only bounds a live but stuck owner. Short leases (crash tests use 2 s) cost every
    // running execution a renewal each 0.7 s, and a flood runs hundreds at once.
    WORKFLOW_LEASE_SECONDS: '15',
    LOG_LEVEL: process.env.CHAOS_STACK_LOG_LEVEL ?? 'ERROR',
    // Every stack process's output is kept in CHAOS_STACK_LOG (a file) when set: a kill takes the tail in memory with it.
  }, process.env.CHAOS_STACK_LOG ? { logFile: process.env.CHAOS_STACK_LOG } : {});
  let child: ChildProcess;
  let url = '';
  // Exits the kill loop did not cause: the service (or its DynamoDB Local) died on its own, a finding.
  const diedOnItsOwn: string[] = [];
  let killingNow: ChildProcess | undefined;
  let stopped: boolean | 'closing' = true;
  async function launch(): Promise<void> {
    ({ child, url } = await stack.launch(port));
    const launched = child;
    launched.once('exit', (code, signal) => {
      if (killingNow === launched || stopped === 'closing') return;
      const said = `the stack exited on its own (code ${code}, signal ${signal}) after ${kills} kills; its last words:\n${stack.outputOf(launched).slice(-4_000)}`;
      diedOnItsOwn.push(said);
      process.stderr.write(`[chaos] ${said}\n`);
    });
  }
  await launch();
  // This process reads (and, to onboard, writes) the same table, as the ops CLI does.
  process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${dynamoPort}`;
  stack.readItsTable();

  const receiver = await startReceiver();
  // Patience enough for a restart: a JVM and the service coming up on two busy cores.
  const client = integrator(() => url, 180_000);
  const random = seededRandom(options.seed);
  let kills = 0;
  const atKills: InFlight[] = [];
  let killing: Promise<void> | undefined;
  let onboarding = 0;
  // Set while the stack is down: onboarding writes to the table, so it starts only when it is up.
  let restarting: Promise<void> | undefined;
  // One onboarding at a time: the engine the wallet workflow runs on is this process's only one.
  let onboardingQueue: Promise<unknown> = Promise.resolve();
  let keeper: ((inFlightNow: () => Promise<number>) => Promise<void>) | undefined;
  let keeping: Promise<void> | undefined;

  /** Work in this process while no kill may happen (onboarding, an operator's call), with a workflow runner of its own. */
  function exclusive<T>(work: (waitFor: (execution: string) => Promise<unknown>) => Promise<T>): Promise<T> {
    const done = onboardingQueue.then(async () => {
      while (restarting) await restarting;
      onboarding += 1;
      // Workflows it starts (an organization's wallet) run here, as the ops CLI runs them, and the runner stops after it.
      const runner = new LocalWorkflowRunner();
      useWorkflowEngine(runner);
      try {
        return await work((execution) => runner.waitFor(execution));
      } finally {
        await runner.stop();
        useWorkflowEngine(undefined);
        onboarding -= 1;
      }
    });
    onboardingQueue = done.catch(() => undefined);
    return done;
  }

  async function killLoop(): Promise<void> {
    while (!stopped && kills < (options.maxKills ?? Infinity)) {
      // The next kill's clock starts once the stack has answered some of what waits on it: on a slow
      // or busy machine a fixed rhythm of kills could otherwise cut every restart short of any work.
      const answeredBefore = client.answeredCount();
      const restartedAt = Date.now();
      await until(async () => client.answeredCount() - answeredBefore, (answered) => answered >= answersBetweenKills || client.inFlight() === 0 || stopped !== false, {
        what: `the restarted stack to answer ${answersBetweenKills} requests`,
        timeoutMs: 300_000,
        intervalMs: 100,
      });
      const answeringMs = Date.now() - restartedAt;
      if (options.killsWaitForKeeper) {
        await until(async () => keeper, (current) => current !== undefined || stopped !== false, { what: 'a keeper of the work in flight', timeoutMs: 3_600_000, intervalMs: 200 });
      }
      // The keeper's top-ups go out as the pause begins (it sends them and returns), and the kill
      // does not wait for them: with a thousand payments settling, the stack took up to 145 s to accept a
      // 1,000-item batch (kills and resends included), and a kill during an intake is one more the
      // contract must survive (the request is sent again with its batchId).
      if (keeper && !keeping && !stopped) {
        const inFlightNow = () => inFlightOperations().then(({ operations }) => operations);
        keeping = keeper(inFlightNow).finally(() => (keeping = undefined));
      }
      const pause = options.killEveryMs.min + random() * (options.killEveryMs.max - options.killEveryMs.min);
      await new Promise((resolve) => setTimeout(resolve, pause));
      if (stopped) return;
      // Onboarding writes through this process's own runner: a kill lands between organizations, not
      // inside one. None starts from here to the restart; the one under way is waited for.
      let up!: () => void;
      restarting = new Promise((resolve) => (up = resolve));
      await until(async () => onboarding, (count) => count === 0 || stopped !== false, { what: 'onboarding to finish before a kill', timeoutMs: 600_000 });
      if (stopped) {
        restarting = undefined;
        up();
        return;
      }
      // What the kill cuts short, read from the table the stack runs on just before it.
      const { running, operations } = await inFlightOperations().catch(() => ({ running: -1, operations: -1 }));
      const awaiting = client.inFlight();
      atKills.push({ executions: running, operations, requests: awaiting });
      killingNow = child;
      await stack.killHard(child);
      kills += 1;
      const down = Date.now();
      await launch();
      process.stderr.write(`[chaos] kill ${kills}: ${running} executions running, ${operations} operations in flight, ${awaiting} requests awaiting an answer; up again in ${((Date.now() - down) / 1000).toFixed(1)} s (it had been up ${((down - restartedAt) / 1000).toFixed(1)} s: ${answersBetweenKills} answers in ${(answeringMs / 1000).toFixed(1)}, a pause of ${(pause / 1000).toFixed(1)})\n`);
      restarting = undefined;
      up();
    }
  }

  return {
    receiver,
    ...client,
    killCount: () => kills,
    // The killed stack runs as `npm start`, in a process of its own: kills are its fault.
    faultsInjected: () => ({}),
    inFlightAtKills: () => [...atKills],
    keepInFlight(topUp) {
      keeper = topUp;
      return async () => {
        if (keeper === topUp) keeper = undefined;
        await keeping;
      };
    },
    organization(label) {
      return exclusive((waitFor) => chaosOrganization(label, client, receiver, waitFor));
    },
    // A call in this process (an operator's resolution, a chain deposit notice) with a workflow
    // runner of its own, between kills; what it starts and leaves unfinished the stack re-drives.
    operator: (work) => exclusive(() => work()),
    outbox,
    startKilling() {
      stopped = false;
      // A failed restart is said at once, not when the run ends (the workload would wait out its patience first).
      killing = killLoop().catch((error: Error) => {
        diedOnItsOwn.push(`the kill loop failed: ${error.message}`);
        process.stderr.write(`[chaos] the kill loop failed: ${error.stack}\n`);
      });
    },
    async stopKilling() {
      stopped = true;
      await killing;
    },
    diedOnItsOwn: () => [...diedOnItsOwn],
    async close() {
      stopped = 'closing';
      await killing;
      await receiver.close();
      await stack.killAll();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(outbox, { recursive: true, force: true });
    },
  };
}
