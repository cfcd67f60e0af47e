/**
 * The workflow engine and event bus ports as the local wiring installs them: each call is first
 * checked as Step Functions or EventBridge would authorize it for the calling function (what its
 * Step Functions or EventBridge adapter would send), then handed to the local runner or bus
 * outside that function, since what they go on to do (drive an execution, deliver to a rule's
 * target) is not the caller's work and is checked as its own function.
 */
import type { BusEntry, EventBus, PublishResult } from '#platform/eventBus.ts';
import type { StartResult, WorkflowEngine, WorkflowHistoryEvent } from '#platform/workflow.ts';
import type { WorkflowName } from '#contract/workflows.ts';
import { LocalGrants, localGrants } from './enforcement.ts';

function checkWorkflowCall(action: string, workflow: WorkflowName, executionName?: string): void {
  const grants = localGrants();
  const machineArn = grants?.stateMachineArnFor(workflow);
  if (!grants || machineArn === undefined) return;
  grants.check(action, executionName === undefined ? machineArn : `${machineArn.replace(':stateMachine:', ':execution:')}:${executionName}`);
}

export class CheckedWorkflowEngine implements WorkflowEngine {
  constructor(private readonly engine: WorkflowEngine) {}

  start(workflow: WorkflowName, executionName: string, input: Record<string, unknown>): Promise<StartResult> {
    checkWorkflowCall('states:StartExecution', workflow);
    return LocalGrants.outside(() => this.engine.start(workflow, executionName, input));
  }

  history(workflow: WorkflowName, executionName: string): Promise<WorkflowHistoryEvent[] | undefined> {
    checkWorkflowCall('states:GetExecutionHistory', workflow, executionName);
    return LocalGrants.outside(() => this.engine.history(workflow, executionName));
  }

  reachable(): Promise<boolean> {
    // The Step Functions adapter answers this without a call to AWS (decision 106): nothing to check.
    return LocalGrants.outside(() => this.engine.reachable());
  }
}

export class CheckedEventBus implements EventBus {
  constructor(private readonly bus: EventBus) {}

  publish(entries: BusEntry[]): Promise<PublishResult> {
    const grants = localGrants();
    if (grants?.current()) grants.check('events:PutEvents', grants.busArnFor());
    return LocalGrants.outside(() => this.bus.publish(entries));
  }
}
