/**
 * `npm run chaos`: the randomized workload against the whole local stack, with the invariants
 * checked after every command and at the end of every run (test/chaos/harness.ts). Prints the
 * figures as a table on stderr and as JSON on stdout; exits 1 on a violation.
 *
 * Two phases (CHAOS_PHASES=faults,kills, the default; either alone):
 * - faults: the stack in this process, with faults injected at its adapters (test/chaos/faults.ts;
 *   CHAOS_FAULTS=0 turns them off), CHAOS_LANES property checks side by side (4), CHAOS_RUNS each (4)
 *   of up to CHAOS_COMMANDS commands (400) over CHAOS_ORGANIZATIONS organizations (3);
 * - kills: the stack as `npm start` on its own DynamoDB Local, SIGKILLed every CHAOS_KILL_EVERY_MS
 *   (<min>-<max>, 6000-12000) until CHAOS_KILLS kills (20), in rounds of one run a lane of up to
 *   CHAOS_KILL_COMMANDS commands (100); the last round ends on a stack left up. Its mix also floods
 *   (100 to 250 payments at once; with CHAOS_BIG_BATCHES=1 also funded batches of 300 to 1,000
 *   items); beside the rounds, a backlog of CHAOS_BACKLOG_ITEMS (1,000; 0: none) in an organization
 *   of its own: a funded batch of that many items, topped up by another batch as each kill's pause
 *   begins (and again after one is accepted while still short; two at most being accepted at once,
 *   none after the last kill) to about that many operations in flight (no kill comes before it
 *   opens), checked once the kills are done; each kill records what it cut short (executions
 *   running, operations in flight, requests awaiting an answer) and the cycle before it (time up,
 *   time to 25 answers, the pause).
 * Logs: without LOG_LEVEL the in-process stack logs at WARN into memory and the first violation
 * prints the last CHAOS_LOG_TAIL lines (200) before it; the kills phase's stack processes log at
 * CHAOS_STACK_LOG_LEVEL (ERROR) into CHAOS_STACK_LOG (a file) when set.
 * The edges run first, on the first phase's stack (CHAOS_EDGES=0 skips them). CHAOS_SEED (default:
 * the time) replays a run; a failure prints its phase, seed and path (CHAOS_PHASES, CHAOS_SEED,
 * CHAOS_LANES=1, CHAOS_PATH, CHAOS_REPLAY_PATH) to replay it alone.
 */
import type { ChaosFigures } from './harness.ts';
import type { World } from './world.ts';
import { keepLogTail } from './logTail.ts';
// Without LOG_LEVEL, the stack logs at WARN into memory, and the first violation prints the last
// CHAOS_LOG_TAIL lines (200) before it. With LOG_LEVEL, it prints as it logs.
const logTail = process.env.LOG_LEVEL ? undefined : keepLogTail(Number(process.env.CHAOS_LOG_TAIL ?? 200));
process.env.LOG_LEVEL ??= 'WARN';
// Metrics are printed on stdout, where the figures' JSON goes.
if (logTail || process.env.LOG_LEVEL === 'SILENT') process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const { startWorld } = await import('./world.ts');
const { defaultFaultPlan } = await import('./faults.ts');
const { startCrashingWorld } = await import('./crashingWorld.ts');
const { combinedFigures, keepBacklog, runChaos } = await import('./harness.ts');
const { copiesEdge, debitsEdge } = await import('./edges.ts');

const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 2 ** 31);
const lanes = Number(process.env.CHAOS_LANES ?? 4);
const runs = Number(process.env.CHAOS_RUNS ?? 4);
const commandsPerRun = Number(process.env.CHAOS_COMMANDS ?? 400);
const organizations = Number(process.env.CHAOS_ORGANIZATIONS ?? 3);
const path = process.env.CHAOS_PATH;
const replayPath = process.env.CHAOS_REPLAY_PATH;
const phases = new Set((process.env.CHAOS_PHASES ?? 'faults,kills').split(','));
// The kills phase: the stack runs as `npm start` and is SIGKILLed every CHAOS_KILL_EVERY_MS=<min>-<max>
// until CHAOS_KILLS kills, in rounds of one run a lane of CHAOS_KILL_COMMANDS commands.
const killEvery = /^(\d+)-(\d+)$/.exec(process.env.CHAOS_KILL_EVERY_MS ?? '6000-12000');
const killsWanted = Number(process.env.CHAOS_KILLS ?? 20);
const killCommands = Number(process.env.CHAOS_KILL_COMMANDS ?? 100);
// The kills phase's backlog: this many operations kept in flight at the kills, in an organization of its own (0: none).
const backlog = Number(process.env.CHAOS_BACKLOG_ITEMS ?? 1_000);
// The first violation only: shrinking replays it many times, each a violation of its own.
let tailPrinted = false;
const log = (message: string) => {
  if (logTail && !tailPrinted && message.includes('VIOLATED')) {
    tailPrinted = true;
    const tail = logTail.take();
    if (tail.length > 0) process.stderr.write(`[chaos] the in-process stack's last ${tail.length} log lines at WARN or above:\n${tail.join('\n')}\n`);
  }
  process.stderr.write(`[chaos] ${message}\n`);
};
const startedAt = Date.now();
if (!killEvery) throw new Error('CHAOS_KILL_EVERY_MS is <min>-<max> in milliseconds');

const parts: ChaosFigures[] = [];
let edges: { copiesSent: number; debitsSent: number } | undefined;
let edgeFailure: string | undefined;
// The kills phase's stack dying when no kill was made: a violation of its own, whatever the workload saw.
let diedOnItsOwn: string[] = [];
const failedIn = (figures: ChaosFigures, phase: string) => (figures.failure ? { ...figures, failure: `in the ${phase} phase (CHAOS_PHASES=${phase} replays it): ${figures.failure}` } : figures);

/** 200 copies of each money-moving POST, 100 debits against 500 (CHAOS_EDGES=0 skips them); once a run, on the first phase's stack. */
async function edgesOn(world: World): Promise<void> {
  if (process.env.CHAOS_EDGES === '0' || edges || edgeFailure) return;
  const edgeRun = `${seed.toString(36)}-${Date.now().toString(36)}`;
  log('edges: 200 concurrent copies of a payment and of a withdrawal; 100 concurrent debits of 10 against 500');
  try {
    edges = { copiesSent: await copiesEdge(world, edgeRun, 200), debitsSent: await debitsEdge(world, edgeRun) };
  } catch (error) {
    edgeFailure = (error as Error).message;
  }
}

if (phases.has('faults')) {
  const faults = process.env.CHAOS_FAULTS === '0' ? undefined : defaultFaultPlan;
  log(`faults phase, seed ${seed}: ${lanes} lanes of ${runs} runs, each up to ${commandsPerRun} commands over ${organizations} organizations; the stack in this process${faults ? ', faults injected at its adapters' : ''}`);
  const world = await startWorld(faults ? { faults, seed } : {});
  try {
    await edgesOn(world);
    parts.push(failedIn(await runChaos({ world, seed, lanes, runs, commandsPerRun, organizations, log, ...(path ? { path } : {}), ...(replayPath ? { replayPath } : {}) }), 'faults'));
  } finally {
    await world.close();
  }
}

if (phases.has('kills') && !parts.some((figures) => figures.failure)) {
  const killEveryMs = { min: Number(killEvery[1]), max: Number(killEvery[2]) };
  log(`kills phase: the stack as npm start, SIGKILLed every ${killEveryMs.min / 1000} to ${killEveryMs.max / 1000} s until ${killsWanted} kills; rounds of ${lanes} lanes, one run of up to ${killCommands} commands each`);
  const world = await startCrashingWorld({ seed, killEveryMs, maxKills: killsWanted, killsWaitForKeeper: backlog > 0 && !path });
  world.startKilling();
  try {
    await edgesOn(world);
    // Kept up beside the rounds from the first kill to the last (no kill comes without it).
    const backlogKept = backlog > 0 && !path ? await keepBacklog(world, { items: backlog, seed, log, kills: killsWanted }) : undefined;
    // Rounds until the kills are done: the last one ends on a stack left up, so its work finishes.
    for (let round = 1; ; round += 1) {
      const figures = failedIn(await runChaos({ world, seed: seed + 1_000 * (round - 1), lanes, runs: 1, commandsPerRun: killCommands, organizations, log, flood: true, bigBatches: process.env.CHAOS_BIG_BATCHES === '1', ...(path ? { path } : {}), ...(replayPath ? { replayPath } : {}) }), 'kills');
      parts.push(figures);
      log(`kills phase round ${round}: ${world.killCount()} kills so far`);
      if (figures.failure || world.killCount() >= killsWanted || path) break;
    }
    if (backlogKept && !parts.some((figures) => figures.failure)) parts.push(failedIn(await backlogKept.finish(), 'kills'));
    diedOnItsOwn = world.diedOnItsOwn();
  } finally {
    await world.close();
  }
}

const combined = combinedFigures(parts);
const figures = diedOnItsOwn.length === 0 ? combined : { ...combined, violations: combined.violations + 1, failure: [`in the kills phase: ${diedOnItsOwn.join('\n')}`, combined.failure].filter(Boolean).join('\n') };

/** Median and largest of what each kill cut short: workflows running, requests awaiting an answer. */
function inFlightRows(atKills: ChaosFigures['inFlightAtKills']): [string, string][] {
  if (atKills.length === 0) return [];
  const spread = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `median ${sorted[Math.floor((sorted.length - 1) / 2)]}, largest ${sorted[sorted.length - 1]}`;
  };
  return [
    ['at a kill: workflow executions running', spread(atKills.map((kill) => kill.executions))],
    ['at a kill: operations in flight (workflow running, or a batch item not yet started)', spread(atKills.map((kill) => kill.operations))],
    ['at a kill: requests awaiting an answer', spread(atKills.map((kill) => kill.requests))],
  ];
}

const rows: [string, string | number][] = [
  ...(edges ? ([['edge: concurrent copies sent (one operation each)', edges.copiesSent], ['edge: concurrent debits of 10 against 500 (exactly 50 sent)', edges.debitsSent]] as [string, number][]) : []),
  ['seed', figures.seed],
  ['lanes', figures.lanes],
  ['runs', figures.runs],
  ['commands', figures.commands],
  ['operations sent', figures.operations],
  ['requests (with the checks\' status reads)', figures.requests],
  ['resent after a 503 or a dropped connection', figures.resent],
  ['kills survived (service and DynamoDB Local)', figures.kills],
  ...inFlightRows(figures.inFlightAtKills),
  ...Object.entries(figures.faultsInjected).map(([kind, count]): [string, number] => [`fault injected: ${kind}`, count]),
  ...Object.entries(figures.operationsByKind).map(([kind, count]): [string, number] => [`sent: ${kind}`, count]),
  ...Object.entries(figures.operationsEnded).map(([state, count]): [string, number] => [`ended ${state}`, count]),
  ...Object.entries(figures.invariantChecks).map(([kind, count]): [string, number] => [`checked: ${kind}`, count]),
  ['violations', figures.violations],
  ['lost', figures.lost],
  ['paid twice', figures.paidTwice],
  ['seconds in the workload (its phases)', figures.seconds],
  ['seconds in all (stacks started, edges)', Math.round((Date.now() - startedAt) / 1000)],
];
const width = Math.max(...rows.map(([name]) => name.length));
process.stderr.write(`\n${rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n')}\n`);
if (edgeFailure) process.stderr.write(`\nEDGE VIOLATION\n${edgeFailure}\n`);
if (figures.failure) process.stderr.write(`\nVIOLATION\n${figures.failure}\n`);
process.stdout.write(`${JSON.stringify({ ...figures, ...(edges ? { edges } : {}), ...(edgeFailure ? { edgeFailure } : {}) }, null, 2)}\n`);
process.exit(figures.violations === 0 && !edgeFailure ? 0 : 1);
