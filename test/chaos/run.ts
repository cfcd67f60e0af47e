/**
 * `npm run chaos`: the randomized workload against the whole local stack, with the invariants
 * checked after every command and at the end of every run (test/chaos/harness.ts). Prints the
 * figures as a table on stderr and as JSON on stdout; exits 1 on a violation.
 *
 * CHAOS_SEED (default: the time) replays a run (with CHAOS_LANES=1 and CHAOS_PATH, the failure it
 * printed); CHAOS_LANES (property checks side by side), CHAOS_RUNS (per lane), CHAOS_COMMANDS (per
 * run, at most) and CHAOS_ORGANIZATIONS (per run) size it. The stack run in this process meets
 * faults at its adapters (test/chaos/faults.ts; CHAOS_FAULTS=0 turns them off); the killed one
 * (CHAOS_KILL_EVERY_MS) meets kills.
 */
export {};
process.env.LOG_LEVEL ??= 'SILENT';
if (process.env.LOG_LEVEL === 'SILENT') process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const { startWorld } = await import('./world.ts');
const { defaultFaultPlan } = await import('./faults.ts');
const { startCrashingWorld } = await import('./crashingWorld.ts');
const { runChaos } = await import('./harness.ts');
const { copiesEdge, debitsEdge } = await import('./edges.ts');

const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 2 ** 31);
const lanes = Number(process.env.CHAOS_LANES ?? 4);
const runs = Number(process.env.CHAOS_RUNS ?? 5);
const commandsPerRun = Number(process.env.CHAOS_COMMANDS ?? 400);
const organizations = Number(process.env.CHAOS_ORGANIZATIONS ?? 3);
const path = process.env.CHAOS_PATH;
// CHAOS_KILL_EVERY_MS=<min>-<max>: the stack runs as `npm start` and is SIGKILLed that often.
const killEvery = /^(\d+)-(\d+)$/.exec(process.env.CHAOS_KILL_EVERY_MS ?? '');
const log = (message: string) => process.stderr.write(`[chaos] ${message}\n`);

log(`seed ${seed}: ${lanes} lanes of ${runs} runs, each up to ${commandsPerRun} commands over ${organizations} organizations`);
const crashing = killEvery ? await startCrashingWorld({ seed, killEveryMs: { min: Number(killEvery[1]), max: Number(killEvery[2]) } }) : undefined;
const world = crashing ?? (await startWorld(process.env.CHAOS_FAULTS === '0' ? {} : { faults: defaultFaultPlan, seed }));
crashing?.startKilling();
let figures;
let edges: { copiesSent: number; debitsSent: number } | undefined;
let edgeFailure: string | undefined;
try {
  // The edges first (CHAOS_EDGES=0 skips them): 200 copies of each money-moving POST, 100 debits against 500.
  if (process.env.CHAOS_EDGES !== '0') {
    const edgeRun = `${seed.toString(36)}-${Date.now().toString(36)}`;
    log('edges: 200 concurrent copies of a payment and of a withdrawal; 100 concurrent debits of 10 against 500');
    try {
      edges = { copiesSent: await copiesEdge(world, edgeRun, 200), debitsSent: await debitsEdge(world, edgeRun) };
    } catch (error) {
      edgeFailure = (error as Error).message;
    }
  }
  figures = await runChaos({ world, seed, lanes, runs, commandsPerRun, organizations, log, ...(path ? { path } : {}) });
} finally {
  await world.close();
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
  ...Object.entries(figures.faultsInjected).map(([kind, count]): [string, number] => [`fault injected: ${kind}`, count]),
  ...Object.entries(figures.operationsByKind).map(([kind, count]): [string, number] => [`sent: ${kind}`, count]),
  ...Object.entries(figures.operationsEnded).map(([state, count]): [string, number] => [`ended ${state}`, count]),
  ...Object.entries(figures.invariantChecks).map(([kind, count]): [string, number] => [`checked: ${kind}`, count]),
  ['violations', figures.violations],
  ['lost', figures.lost],
  ['paid twice', figures.paidTwice],
  ['seconds', figures.seconds],
];
const width = Math.max(...rows.map(([name]) => name.length));
process.stderr.write(`\n${rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join('\n')}\n`);
if (edgeFailure) process.stderr.write(`\nEDGE VIOLATION\n${edgeFailure}\n`);
if (figures.failure) process.stderr.write(`\nVIOLATION\n${figures.failure}\n`);
process.stdout.write(`${JSON.stringify({ ...figures, ...(edges ? { edges } : {}), ...(edgeFailure ? { edgeFailure } : {}) }, null, 2)}\n`);
process.exit(figures.violations === 0 && !edgeFailure ? 0 : 1);
