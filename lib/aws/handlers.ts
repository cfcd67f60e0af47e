import { routes } from '#contract/routes.ts';
import { workflows } from '#contract/workflows.ts';
import { eventRules, mailFeedbackRule } from '#contract/events.ts';

/**
 * Every Lambda handler module the AWS wiring deploys, read from the wiring tables so that a new
 * route row, workflow task or event rule gets its function without a change here. No CDK is
 * imported here: the local wiring reads these names too.
 */

/** The table stream's consumer: not a row of any wiring table, since it is plumbing, not an endpoint or a rule. */
export const outboxForwarderHandler = 'functions/events/outboxForwarder.ts';

/** The sweeper's module (not a row of any wiring table: it is run by a schedule, not a route or a rule). */
export const sweeperHandler = 'functions/scheduled/startSweeper.ts';

/**
 * Requests that match no row (the HTTP API's `$default` route): 404 or 405 in the contract's
 * error shape instead of API Gateway's own `{"message":"Not Found"}`. The local adapter falls
 * back to the same module.
 */
export const unmatchedHandler = 'functions/api/unmatched.ts';

/** Distinct modules, in a stable order (route handlers, the unmatched fallback, task handlers, event targets, forwarder). */
export function lambdaEntries(): string[] {
  const entries = [
    ...routes.map((definition) => definition.handler),
    unmatchedHandler,
    ...Object.values(workflows).flatMap((workflow) => Object.values(workflow.tasks).map((task) => task.handler)),
    ...eventRules.map((rule) => rule.target),
    mailFeedbackRule.target,
    outboxForwarderHandler,
    sweeperHandler,
  ];
  return [...new Set<string>(entries)];
}

/**
 * `functions/api/discovery/getHealth.ts` → `api-discovery-getHealth`: one bundle directory and
 * one construct id per module. Deterministic, so the asset of an unchanged handler keeps its hash.
 */
export function entryName(entry: string): string {
  return entry.replace(/^functions\//, '').replace(/\.[cm]?[jt]s$/, '').replaceAll('/', '-');
}
