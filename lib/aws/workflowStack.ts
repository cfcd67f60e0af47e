import { Duration, Fn, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { workflows, type TaskDefinition } from '#contract/workflows.ts';
import { workflowDefinition } from '#contract/taskRetryPolicy.ts';
import { projectRoot, type LambdaBundle } from '../build/lambdaBundles.ts';
import { tableExtrasOf } from '#contract/routes.ts';
import { entryName } from './handlers.ts';
import { stateMachineArn, stateMachineName, type StageSettings } from './environment.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';
import { SweeperSchedule, sweeperHandler } from './sweeperSchedule.ts';

/**
 * How long a task function may run. Every Task state waits longer (the task policy's
 * TimeoutSeconds, checked by test/unit/asl.test.ts), so a stuck call fails as the function's own
 * timeout (Sandbox.Timedout / Lambda.Unknown) that the Retry sees, not as States.Timeout on an
 * invocation still running.
 */
export const taskFunctionTimeoutSeconds = 30;

export interface WorkflowStackProps extends StackProps {
  context: FunctionContext;
  bundleOf: (entry: string) => LambdaBundle;
}

/**
 * One Standard state machine per entry of the workflow registry (functions/contract/workflows.ts). The
 * definition is the very one the local runner executes (its ASL file with the task policy,
 * functions/contract/taskRetryPolicy.ts); only the `${Task}` placeholders are filled in, with the
 * ARN of the Lambda built from that task's handler module.
 */
export class WorkflowStack extends Stack {
  readonly stateMachines = new Map<string, StateMachine>();

  constructor(scope: Construct, id: string, props: WorkflowStackProps) {
    super(scope, id, props);
    const { settings } = props.context;

    // Log group names end with the first part of this stack's id, which CloudFormation makes anew for
    // every creation: a retained group of a deleted stack keeps its name, and a fixed name would stop
    // the stack from being created again ("already exists").
    const creation = Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', this.stackId))));

    // A task module named by two workflows is still one function.
    const taskFunctions = new Map<string, ServiceFunction>();
    const taskFunction = (task: TaskDefinition) => {
      const handler = task.handler;
      let built = taskFunctions.get(handler);
      if (!built) {
        built = new ServiceFunction(this, entryName(handler), {
          context: props.context,
          bundle: props.bundleOf(handler),
          // Tasks move operations with conditional writes; those that close markers delete too.
          table: 'write',
          tableExtras: tableExtrasOf(task),
          timeout: Duration.seconds(taskFunctionTimeoutSeconds),
        });
        taskFunctions.set(handler, built);
      }
      return built.function;
    };

    for (const workflow of Object.values(workflows)) {
      const tasks = Object.entries(workflow.tasks).map(([key, task]) => ({ key, fn: taskFunction(task) }));
      // A task that starts other workflows (a batch's items) may start exactly those, by name: no construct reference, no cycle.
      for (const [key, task] of Object.entries(workflow.tasks) as [string, TaskDefinition][]) {
        if (task.opensSecrets) props.context.webhookSecretKey.grantDecrypt(tasks.find((entry) => entry.key === key)!.fn);
        if (!task.starts?.length) continue;
        tasks.find((entry) => entry.key === key)!.fn.addToRolePolicy(new PolicyStatement({
          actions: ['states:StartExecution'],
          resources: task.starts.map((name) => stateMachineArn(this, settings, name)),
        }));
      }
      const machine = new StateMachine(this, workflow.name, {
        stateMachineName: stateMachineName(settings, workflow.name),
        stateMachineType: StateMachineType.STANDARD,
        // Indented as the file is, for the console's reader.
        definitionBody: DefinitionBody.fromString(JSON.stringify(workflowDefinition(workflow, projectRoot), null, 2)),
        definitionSubstitutions: Object.fromEntries(tasks.map(({ key, fn }) => [key, fn.functionArn])),
        tracingEnabled: true,
        logs: {
          destination: new LogGroup(this, `${workflow.name}Logs`, {
            // The vendedlogs prefix keeps Step Functions' log delivery from growing the account's
            // CloudWatch Logs resource policy with one statement per log group.
            logGroupName: Fn.join('', [`/aws/vendedlogs/states/${stateMachineName(settings, workflow.name)}-`, creation]),
            retention: settings.logRetention,
            removalPolicy: settings.logRemovalPolicy,
          }),
          level: LogLevel.ALL,
          // Inputs and outputs carry account numbers and amounts: state transitions are logged, payloads are not.
          includeExecutionData: false,
        },
      });
      // The ASL calls each task by its unqualified ARN, so the unqualified ARN is all the role
      // needs (fn.grantInvoke would add "<arn>:*", every version and alias).
      machine.addToRolePolicy(new PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: tasks.map(({ fn }) => fn.functionArn),
      }));
      Validations.of(machine).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'Log delivery (logs:CreateLogDelivery, logs:PutResourcePolicy, ...) and X-Ray (xray:PutTraceSegments, ...) '
          + 'have no resource-level permissions, so their resource is "*".',
      });
      this.stateMachines.set(workflow.name, machine);
    }
    new SweeperSchedule(this, 'Sweeper', {
      context: props.context,
      bundle: props.bundleOf(sweeperHandler),
      stateMachineArns: [...this.stateMachines.values()].map((machine) => machine.stateMachineArn),
    });
  }
}
