/**
 * The registry of workflows: one ASL file each, with the task handlers its Task states call.
 * The CDK workflow stack makes one Standard state machine per entry (ASL loaded from the file,
 * `${Placeholder}` substituted with each task Lambda's ARN); the local runner runs the same
 * file and calls the same handler modules in process.
 *
 * A Task needs no TimeoutSeconds, Retry or Catch: functions/contract/taskRetryPolicy.ts adds the one
 * policy to every Task that does not declare its own (docs/decisions/119).
 *
 * In an ASL file a Task state calls a task like this:
 *   "Resource": "arn:aws:states:::lambda:invoke",
 *   "Parameters": { "FunctionName": "${CreateWallet}", "Payload.$": "$" },
 *   "ResultSelector": { "result.$": "$.Payload" }   (or OutputPath "$.Payload")
 * where `CreateWallet` is a key of `tasks` below.
 */
export interface TaskDefinition {
  /** Module (relative to the project root) exporting `handler(input) => output`. */
  handler: string;
  /** Workflows the task starts (states:StartExecution on those state machines only, in AWS): a batch starts its items' payments. */
  starts?: readonly string[];
  /** Opens sealed signing secrets (webhook secrets): granted kms:Decrypt on the secrets key in AWS (docs/decisions/092). */
  opensSecrets?: boolean;
  /** Deletes items (closes markers): DeleteItem is granted only to the tasks that say so. */
  deletes?: true;
}

export interface WorkflowDefinition {
  /** Registry key, also the suffix of the state machine name. */
  name: string;
  /** ASL file relative to the project root. */
  definition: string;
  tasks: Record<string, TaskDefinition>;
  /**
   * The state every other Task's unexpected error goes to (a `Park…` Task, or a Fail state): the
   * task policy (functions/contract/taskRetryPolicy.ts) adds that Catch to each Task that declares none.
   */
  catchInto?: string;
  /** Set for a money-moving operation's workflow: what the operation kit needs to start it (functions/operations/kit). */
  operation?: OperationWorkflow;
}

/**
 * A money-moving operation's workflow. Its input is `{ organizationId, [idField]: id }`; its
 * execution name is `<organizationId>-<executionPrefix>-<id>` (one rule for every operation, so two
 * operations of different kinds with the same id never collide and a support reader sees both);
 * `startedBy` are the outbox events that start it when the request that stored it died first.
 */
export interface OperationWorkflow {
  idField: string;
  executionPrefix: string;
  /** How the operation is named in answers and logs ("payment", "off-ramp"). */
  noun: string;
  startedBy: readonly string[];
}

export const workflows = {
  walletProvisioning: {
    name: 'walletProvisioning',
    catchInto: 'ProvisioningFailed',
    definition: 'statemachines/wallet-provisioning.asl.json',
    tasks: {
      CreateWallet: { handler: 'functions/tasks/walletProvisioning/createWallet.ts' },
      ActivateWallet: { handler: 'functions/tasks/walletProvisioning/activateWallet.ts' },
    },
  },
  payment: {
    name: 'payment',
    catchInto: 'ParkPayment',
    operation: { idField: 'transactionId', executionPrefix: 'payment', noun: 'payment', startedBy: ['transaction.funded'] },
    definition: 'statemachines/payment.asl.json',
    tasks: {
      PaymentStep: { handler: 'functions/tasks/payment/paymentStep.ts' },
    },
  },
  batch: {
    name: 'batch',
    catchInto: 'ParkBatch',
    operation: { idField: 'batchId', executionPrefix: 'batch', noun: 'batch', startedBy: ['batch.accepted'] },
    definition: 'statemachines/batch.asl.json',
    tasks: {
      BatchStep: { handler: 'functions/tasks/batch/batchStep.ts', starts: ['payment'] },
    },
  },
  offRamp: {
    name: 'offRamp',
    catchInto: 'ParkOffRamp',
    operation: { idField: 'offRampId', executionPrefix: 'offramp', noun: 'off-ramp', startedBy: ['offramp.accepted'] },
    definition: 'statemachines/offramp.asl.json',
    tasks: {
      OffRampStep: { handler: 'functions/tasks/offRamp/offRampStep.ts' },
    },
  },
  withdrawal: {
    name: 'withdrawal',
    catchInto: 'ParkWithdrawal',
    operation: { idField: 'withdrawalId', executionPrefix: 'withdrawal', noun: 'withdrawal', startedBy: ['withdrawal.initiated'] },
    definition: 'statemachines/withdrawal.asl.json',
    tasks: {
      WithdrawalStep: { handler: 'functions/tasks/withdrawal/withdrawalStep.ts' },
    },
  },
  onRamp: {
    name: 'onRamp',
    catchInto: 'ParkOnRamp',
    operation: { idField: 'onRampId', executionPrefix: 'onramp', noun: 'on-ramp', startedBy: ['onramp.started'] },
    definition: 'statemachines/onramp.asl.json',
    tasks: {
      OnRampStep: { handler: 'functions/tasks/onRamp/onRampStep.ts', deletes: true },
    },
  },
  chainDeposit: {
    name: 'chainDeposit',
    catchInto: 'ParkDeposit',
    operation: { idField: 'depositId', executionPrefix: 'chain-deposit', noun: 'chain deposit', startedBy: ['chain_deposit.settling'] },
    definition: 'statemachines/chain-deposit.asl.json',
    tasks: {
      ChainDepositStep: { handler: 'functions/tasks/chainDeposit/chainDepositStep.ts' },
    },
  },
  /**
   * One delivery of one event to the organization's webhook endpoint (docs/decisions/091): not a
   * money-moving operation, so no intake and no sweeper; started by the webhook event rule
   * (functions/events/webhookStarter.ts) only when the first attempt, which the starter makes
   * itself, failed (docs/decisions/132), and by POST /events/{eventId}/redeliver. Each later attempt
   * is a Task of the history support staff read; the retry schedule's waits are its Wait states.
   */
  webhookDelivery: {
    name: 'webhookDelivery',
    catchInto: 'ParkDelivery',
    definition: 'statemachines/webhook-delivery.asl.json',
    tasks: {
      DeliveryStep: { handler: 'functions/tasks/webhookDelivery/deliveryStep.ts', opensSecrets: true },
    },
  },
} as const satisfies Record<string, WorkflowDefinition>;

/** The workflows of money-moving operations. */
export type OperationWorkflowName = { [K in WorkflowName]: (typeof workflows)[K] extends { operation: OperationWorkflow } ? K : never }[WorkflowName];

export type WorkflowName = keyof typeof workflows;
