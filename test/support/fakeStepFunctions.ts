import { SFNServiceException } from '@aws-sdk/client-sfn';
import type { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { startFakeAwsJsonService, type AwsJsonAnswer } from './fakeAwsJson.ts';

/**
 * A stand-in for AWS Step Functions, which cannot run here: StartExecution and GetExecutionHistory
 * over its JSON 1.0 protocol, reached by the real SDK client through AWS_ENDPOINT_URL_SFN, answered
 * by the local workflow runner, which already holds Step Functions' rules for them (a repeat of a
 * running execution answered with its original start, ExecutionAlreadyExists once it has ended or
 * for other input, the input and name limits: lib/local/workflowRunner.ts, stepFunctionsLimits.ts).
 * What it adds is the wire: timestamps as epoch seconds, errors by `__type`, history in pages of
 * `pageSize` events at most behind a `nextToken`. The state machine is the ARN's name after
 * `machinePrefix`. Every request's operation is kept in `requests`.
 */
export interface FakeStepFunctions {
  url: string;
  requests: { operation: string; input: Record<string, unknown> }[];
  stop(): Promise<void>;
}

export async function startFakeStepFunctions(runner: LocalWorkflowRunner, options: { machinePrefix: string; pageSize: number }): Promise<FakeStepFunctions> {
  const requests: FakeStepFunctions['requests'] = [];
  const machineOf = (arn: unknown): string | undefined => (typeof arn === 'string' && arn.startsWith(options.machinePrefix) ? arn.slice(options.machinePrefix.length) : undefined);
  const seconds = (date: Date | string) => new Date(date).getTime() / 1000;

  const answer = async (operation: string, input: Record<string, unknown>): Promise<AwsJsonAnswer> => {
    requests.push({ operation, input });
    try {
      if (operation === 'StartExecution') {
        const workflow = machineOf(input.stateMachineArn);
        if (!workflow) return { body: { message: `State Machine Does Not Exist: '${String(input.stateMachineArn)}'` }, error: 'StateMachineDoesNotExist' };
        const started = await runner.startExecution(workflow, String(input.name), JSON.parse(String(input.input ?? '{}')) as Record<string, unknown>);
        return { body: { executionArn: started.executionArn, startDate: seconds(started.startDate!) } };
      }
      if (operation === 'GetExecutionHistory') {
        // The inverse of executionArnOf: the machine's ARN with `execution` for `stateMachine`, then `:<name>`.
        const arn = String(input.executionArn);
        const name = arn.slice(arn.lastIndexOf(':') + 1);
        const workflow = machineOf(arn.slice(0, arn.lastIndexOf(':')).replace(':execution:', ':stateMachine:'));
        const events = workflow && name ? await runner.history(workflow, name) : undefined;
        if (!events) return { body: { message: `Execution Does Not Exist: '${String(input.executionArn)}'` }, error: 'ExecutionDoesNotExist' };
        const from = Number(input.nextToken ?? 0);
        const size = Math.min(Number(input.maxResults ?? 1000) || 1000, options.pageSize);
        const page = events.slice(from, from + size).map((event) => ({ ...event, timestamp: seconds(event.timestamp) }));
        return { body: { events: page, ...(from + size < events.length ? { nextToken: String(from + size) } : {}) } };
      }
      return { body: { message: `${operation} is not played here` }, error: 'UnknownOperationException' };
    } catch (error) {
      // The runner raises Step Functions' own exceptions (ExecutionAlreadyExists, ValidationException, InvalidName); anything else is a 500.
      if (error instanceof SFNServiceException) return { body: { message: error.message }, error: error.name };
      throw error;
    }
  };
  const service = await startFakeAwsJsonService(answer);
  return { url: service.url, requests, stop: service.stop };
}
