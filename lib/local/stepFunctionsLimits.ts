import { InvalidName, ValidationException } from '@aws-sdk/client-sfn';

/**
 * Step Functions' quotas, enforced by the local runner (lib/local/workflowRunner.ts) where Step
 * Functions enforces them, and answered as it answers (docs/decisions/101, docs/deployment.md
 * "Step Functions limits"):
 *
 * - 256 KiB (262,144 bytes of UTF-8) per execution input, state input and output, and task
 *   payload. StartExecution refuses a larger input with ValidationException (its `input` member's
 *   length constraint); inside an execution the state fails with `States.DataLimitExceeded`, which
 *   no Retry or Catch matches, so the execution fails.
 * - 25,000 events in an execution's history: the execution fails with `States.Runtime`.
 * - An execution's name: 1 to 80 characters (ValidationException, its `name` member's length
 *   constraint), none of them white space, a control character, a backtick or any of
 *   `< > { } [ ] ? * " # % \ ^ | ~ $ & , ; : /` (InvalidName).
 */
export const payloadLimitBytes = 262_144;
export const historyEventsLimit = 25_000;

/**
 * An error no Retry or Catch matches (not even States.ALL): it fails the execution, as Step
 * Functions' terminal errors do. aws-local-stepfunctions reads these two flags off the error it
 * is given (`error.isRetryable ?? true`, `error.isCatchable ?? true`), as it does for its own
 * States.Runtime.
 */
export class TerminalStateError extends Error {
  readonly isRetryable = false;
  readonly isCatchable = false;

  constructor(name: 'States.DataLimitExceeded' | 'States.Runtime', message: string) {
    super(message);
    this.name = name;
  }
}

/** A JSON text's size as Step Functions counts it. */
export function utf8Bytes(json: string): number {
  return Buffer.byteLength(json, 'utf8');
}

const executionNameMaxLength = 80;

/** StartExecution's checks of its `name` member. */
export function checkExecutionName(name: string): void {
  const length = [...name].length;
  if (length < 1 || length > executionNameMaxLength) {
    throw new ValidationException({
      $metadata: { httpStatusCode: 400 },
      message: `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint: Member must have length ${length < 1 ? 'greater than or equal to 1' : `less than or equal to ${executionNameMaxLength}`}`,
    });
  }
  if (/[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]/u.test(name)) {
    throw new InvalidName({ $metadata: { httpStatusCode: 400 }, message: `Invalid Name: '${name}'` });
  }
}

/** StartExecution's own check of its `input` member, before anything else of the request. */
export function checkExecutionInput(inputJson: string): void {
  if (utf8Bytes(inputJson) <= payloadLimitBytes) return;
  throw new ValidationException({
    $metadata: { httpStatusCode: 400 },
    message: `1 validation error detected: Value at 'input' failed to satisfy constraint: Member must have length less than or equal to ${payloadLimitBytes}`,
  });
}

/** The size of a state's or task's data, or the terminal error Step Functions fails the execution with past the limit. */
export function measurePayload(stateName: string, json: string, what: 'input' | 'result'): number {
  const bytes = utf8Bytes(json);
  if (bytes > payloadLimitBytes) throw dataLimitExceeded(stateName, what);
  return bytes;
}

function dataLimitExceeded(stateName: string, what: 'input' | 'result'): TerminalStateError {
  const message = what === 'result'
    ? `The state/task '${stateName}' returned a result with a size exceeding the maximum number of bytes service limit.`
    : `The state/task '${stateName}' has an input with a size exceeding the maximum number of bytes service limit.`;
  return new TerminalStateError('States.DataLimitExceeded', message);
}

export function historyLimitReached(): TerminalStateError {
  return new TerminalStateError('States.Runtime', `The execution reached the maximum number of history events (${historyEventsLimit}).`);
}
