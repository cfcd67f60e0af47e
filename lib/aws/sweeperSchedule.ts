import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

import { sweeperHandler } from './handlers.ts';

export { sweeperHandler };

export interface SweeperScheduleProps {
  context: FunctionContext;
  bundle: LambdaBundle;
  /** The state machines it may start (it restarts payments and withdrawals under their own names). */
  stateMachineArns: string[];
  /** @default 5 minutes */
  every?: Duration;
}

/**
 * The sweeper (functions/scheduled/startSweeper.ts) on an EventBridge Scheduler schedule: it
 * starts again, under the same execution name, an operation that stayed in its starting status
 * with no workflow; locally lib/local/service.ts runs the same function on a timer.
 */
export class SweeperSchedule extends Construct {
  readonly function: ServiceFunction;

  constructor(scope: Construct, id: string, props: SweeperScheduleProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', { context: props.context, bundle: props.bundle, timeout: Duration.seconds(60), table: 'read' });
    this.function.function.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: props.stateMachineArns }));
    // The scheduler's own role, so the one grant it needs is stated here (and acknowledged here).
    const role = new Role(this, 'SchedulerRole', { assumedBy: new ServicePrincipal('scheduler.amazonaws.com') });
    new Schedule(this, 'Schedule', {
      description: 'Restarts operations left in their starting status with no workflow (docs/decisions/087)',
      schedule: ScheduleExpression.rate(props.every ?? Duration.minutes(5)),
      target: new LambdaInvoke(this.function.function, { role, retryAttempts: 0 }),
    });
    const functionId = Stack.of(this).getLogicalId(this.function.function.node.defaultChild as CfnFunction);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason: 'grantInvoke adds the function\'s versions and aliases (<arn>:*) beside the function: invoking the sweeper is all it allows.',
    });
  }
}
