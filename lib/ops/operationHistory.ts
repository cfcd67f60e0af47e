import { operationExecutionName } from '#operations/kit/start.ts';
import { operatorDetail, parkedStatuses } from '#operations/kit/resolution.ts';
import { workflowEngine, type WorkflowHistoryEvent } from '#platform/workflow.ts';
import { getOperation, type OperationKind } from '#store/operations.ts';
import { getTransaction } from '#store/transactions.ts';
import { getBatch } from '#store/batches.ts';
import type { OperationWorkflowName } from '#contract/workflows.ts';

/**
 * `admin ops history <organizationId> <operationId>`: an operation's path as support staff read
 * it. The workflow's events come from the engine's history (Step Functions' GetExecutionHistory in
 * AWS, the local runner's record of the same events here); the operation's own timeline adds where
 * it parked and why, and the operators' resolutions (decision 063). One formatter, historyLines,
 * turns both into lines; it prints state names, task outcomes, error names, waits and retries, never
 * task inputs, causes or outputs beyond the outcome fields (no personal data, no account numbers).
 */
export interface OperationOfRecord {
  organizationId: string;
  id: string;
  kind: 'payment' | 'batch' | OperationKind;
  status: string;
  workflow: OperationWorkflowName;
  executionName: string;
  timeline: { status: string; at: string; detail?: string }[];
}

export interface HistoryLine {
  at: string;
  /** `workflow`: an engine event; `operation`: the operation's timeline; `operator`: a resolution. */
  source: 'workflow' | 'operation' | 'operator';
  text: string;
}

/** The operation of that id, whatever its kind, with the execution that runs it. */
export async function findOperation(organizationId: string, operationId: string): Promise<OperationOfRecord | undefined> {
  const tx = await getTransaction(organizationId, operationId);
  if (tx) {
    return {
      organizationId,
      id: operationId,
      kind: 'payment',
      status: tx.state,
      workflow: 'payment',
      executionName: operationExecutionName('payment', organizationId, operationId),
      timeline: tx.timeline.map(({ state, at, detail }) => ({ status: state, at, ...(detail ? { detail } : {}) })),
    };
  }
  const batch = await getBatch(organizationId, operationId);
  if (batch) {
    return {
      organizationId, id: operationId, kind: 'batch', status: batch.state, workflow: 'batch', executionName: operationExecutionName('batch', organizationId, operationId),
      timeline: [{ status: 'ACCEPTED', at: batch.createdAt, detail: `${batch.itemCount} items` }],
    };
  }
  const kinds: [OperationKind, OperationWorkflowName][] = [
    ['onramp', 'onRamp'],
    ['withdrawal', 'withdrawal'],
    ['offramp', 'offRamp'],
    ['chainDeposit', 'chainDeposit'],
  ];
  for (const [kind, workflow] of kinds) {
    const record = await getOperation(organizationId, kind, operationId);
    if (record) {
      return { organizationId, id: operationId, kind, status: record.status, workflow, executionName: operationExecutionName(workflow, organizationId, operationId), timeline: record.timeline };
    }
  }
  return undefined;
}

export interface OperationHistory {
  operation: Omit<OperationOfRecord, 'timeline'>;
  /** False when the engine has no execution of that name (never started, or started under an older name). */
  executionFound: boolean;
  lines: HistoryLine[];
}

export async function operationHistory(organizationId: string, operationId: string): Promise<OperationHistory | undefined> {
  const operation = await findOperation(organizationId, operationId);
  if (!operation) return undefined;
  const events = await (await workflowEngine()).history(operation.workflow, operation.executionName);
  const { timeline, ...described } = operation;
  return { operation: described, executionFound: events !== undefined, lines: historyLines(events ?? [], timeline) };
}

/** Both sources as one list in time order (a workflow event before the timeline entry it caused at the same instant). */
export function historyLines(events: WorkflowHistoryEvent[], timeline: OperationOfRecord['timeline'] = []): HistoryLine[] {
  const lines = [...workflowLines(events), ...timeline.map(timelineLine)];
  const rank = { workflow: 0, operation: 1, operator: 1 } as const;
  return lines
    .map((line, index) => ({ line, index }))
    .sort((a, b) => a.line.at.localeCompare(b.line.at) || rank[a.line.source] - rank[b.line.source] || a.index - b.index)
    .map(({ line }) => line);
}

function timelineLine(entry: OperationOfRecord['timeline'][number]): HistoryLine {
  const resolution = entry.detail?.startsWith(operatorDetail(''));
  const parked = parkedStatuses.includes(entry.status);
  const text = `${parked ? 'parked ' : ''}${entry.status}${entry.detail ? `: ${entry.detail}` : ''}`;
  return { at: entry.at, source: resolution ? 'operator' : 'operation', text };
}

function workflowLines(events: WorkflowHistoryEvent[]): HistoryLine[] {
  const lines: HistoryLine[] = [];
  const enteredAt = new Map<string, string>();
  let currentState: string | undefined;
  let failedInState = false;
  let attempts = 0;
  const line = (at: string, text: string) => lines.push({ at, source: 'workflow', text });

  for (const event of events) {
    const at = event.timestamp;
    const type = event.type ?? '';
    if (type === 'ExecutionStarted') line(at, 'execution started');
    else if (type === 'ExecutionRedriven') line(at, 'execution re-driven from its start (the engine that ran it had stopped)');
    else if (type === 'ExecutionSucceeded') line(at, 'execution succeeded');
    else if (type === 'ExecutionFailed') line(at, `execution failed: ${event.executionFailedEventDetails?.error ?? 'unknown error'}`);
    else if (type === 'ExecutionTimedOut') line(at, 'execution timed out');
    else if (type === 'ExecutionAborted') line(at, 'execution stopped');
    else if (type.endsWith('StateEntered')) {
      const name = event.stateEnteredEventDetails?.name ?? '?';
      const kind = type.slice(0, -'StateEntered'.length).toLowerCase();
      currentState = name;
      failedInState = false;
      attempts = 0;
      enteredAt.set(name, at);
      line(at, `entered ${name} (${kind})`);
    } else if (type === 'TaskScheduled') {
      attempts += 1;
      if (failedInState && attempts > 1) line(at, `retry ${attempts - 1} of ${currentState ?? 'the task'}`);
    } else if (type === 'TaskFailed' || type === 'LambdaFunctionFailed' || type === 'TaskTimedOut' || type === 'LambdaFunctionTimedOut') {
      failedInState = true;
      const error = event.taskFailedEventDetails?.error ?? event.lambdaFunctionFailedEventDetails?.error ?? event.taskTimedOutEventDetails?.error ?? 'States.Timeout';
      line(at, `task ${currentState ?? ''} failed: ${error}`.replace('  ', ' '));
    } else if (type.endsWith('StateExited')) {
      const name = event.stateExitedEventDetails?.name ?? '?';
      const since = enteredAt.get(name);
      const took = since ? ` after ${duration(Date.parse(at) - Date.parse(since))}` : '';
      const verb = type === 'WaitStateExited' ? `waited in ${name}${took.replace(' after', '')}` : `left ${name}${took}`;
      const outcome = type === 'TaskStateExited' ? outcomeOf(event.stateExitedEventDetails?.output) : '';
      line(at, `${verb}${outcome ? `: ${outcome}` : ''}`);
    }
  }
  return lines;
}

/**
 * What a task answered, from the state's output: only the fields the workflows route on
 * (outcome, next step, wait, status) and a step's report line, wherever a ResultPath put them.
 * Nothing else is printed.
 */
function outcomeOf(output: string | undefined): string {
  if (!output) return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return '';
  }
  const places = [parsed, ...(isObject(parsed) ? Object.values(parsed) : [])].filter(isObject);
  const pick = (key: string) => places.map((place) => place[key]).find((value) => typeof value === 'string' || typeof value === 'number');
  const parts: string[] = [];
  const outcome = pick('outcome') ?? pick('next');
  if (outcome !== undefined) parts.push(`outcome ${outcome}`);
  const status = pick('status');
  if (status !== undefined && typeof status === 'string' && /^[a-zA-Z_]+$/.test(status)) parts.push(`status ${status}`);
  const wait = pick('waitSeconds') ?? pick('activationWaitSeconds');
  if (typeof wait === 'number' && outcome !== 'paid' && outcome !== 'done') parts.push(`next wait ${wait} s`);
  // A step's one-line report (a batch: which items started and which failed, by itemRef and reason).
  const report = pick('report');
  if (typeof report === 'string' && report !== '') parts.push(report);
  return parts.join(', ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** The readable form: a header, then one line per event, time first. */
export function renderHistory(history: OperationHistory): string {
  const { operation } = history;
  const header = [
    `${operation.kind} ${operation.id} of ${operation.organizationId}: ${operation.status}${parkedStatuses.includes(operation.status) ? ' (parked for a person)' : ''}`,
    `workflow ${operation.workflow}, execution ${operation.executionName}${history.executionFound ? '' : ' (no such execution in the engine)'}`,
  ];
  const width = Math.max(...history.lines.map((line) => line.source.length), 0);
  return [...header, '', ...history.lines.map((line) => `${line.at}  ${line.source.padEnd(width)}  ${line.text}`)].join('\n');
}
