/**
 * IAM policy evaluation for the local grant check: an explicit Deny wins, otherwise an Allow must
 * match the action, the resource and every condition; nothing matching is an implicit deny
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).
 * Only the condition operators the stacks use are known; an unknown one throws instead of being
 * read as true or false.
 */
import { z } from 'zod';

const stringOrList = z.union([z.string(), z.array(z.string())]).transform((value) => (Array.isArray(value) ? value : [value]));

export const policyStatement = z.object({
  Effect: z.enum(['Allow', 'Deny']),
  Action: stringOrList.optional(),
  NotAction: stringOrList.optional(),
  Resource: stringOrList.optional(),
  NotResource: stringOrList.optional(),
  Principal: z.union([z.literal('*'), z.record(z.string(), stringOrList)]).optional(),
  Condition: z.record(z.string(), z.record(z.string(), stringOrList)).optional(),
  Sid: z.string().optional(),
});
export type PolicyStatement = z.infer<typeof policyStatement>;

export interface AccessRequest {
  /** `service:Action`, e.g. `dynamodb:PutItem`. */
  action: string;
  resource: string;
  /** Condition keys and their values for this request (aws:SourceArn, aws:SecureTransport, …). */
  context?: Record<string, string>;
  /** For a resource policy: who asks (`{ Service: 'events.amazonaws.com' }`, `{ AWS: roleArn }`). */
  principal?: { Service?: string; AWS?: string };
}

export type Decision = 'allowed' | 'explicitDeny' | 'implicitDeny';

/** Compiled once per pattern: every SDK call of every function is checked against these. */
const compiled = new Map<string, RegExp>();

/** IAM's wildcard match: `*` any run of characters, `?` one; action names are case-insensitive. */
function wildcard(pattern: string, value: string, ignoreCase: boolean): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return ignoreCase ? pattern.toLowerCase() === value.toLowerCase() : pattern === value;
  const key = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let regex = compiled.get(key);
  if (!regex) {
    const source = pattern.split('').map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
    regex = new RegExp(`^${source}$`, ignoreCase ? 'is' : 's');
    compiled.set(key, regex);
  }
  return regex.test(value);
}

function matchesAny(patterns: string[], value: string, ignoreCase: boolean): boolean {
  return patterns.some((pattern) => wildcard(pattern, value, ignoreCase));
}

const conditionOperators: Record<string, (expected: string, actual: string) => boolean> = {
  StringEquals: (expected, actual) => expected === actual,
  StringLike: (expected, actual) => wildcard(expected, actual, false),
  ArnEquals: (expected, actual) => expected === actual,
  ArnLike: (expected, actual) => wildcard(expected, actual, false),
  Bool: (expected, actual) => expected.toLowerCase() === actual.toLowerCase(),
};

function conditionsHold(condition: PolicyStatement['Condition'], context: Record<string, string>): boolean {
  for (const [operator, keys] of Object.entries(condition ?? {})) {
    const test = conditionOperators[operator];
    if (!test) throw new Error(`Condition operator ${operator} is not evaluated by the local grant check`);
    for (const [key, expected] of Object.entries(keys)) {
      // IAM compares keys case-insensitively; a key absent from the request fails every operator here.
      const actual = Object.entries(context).find(([name]) => name.toLowerCase() === key.toLowerCase())?.[1];
      if (actual === undefined || !expected.some((value) => test(value, actual))) return false;
    }
  }
  return true;
}

function principalMatches(statement: PolicyStatement, principal: AccessRequest['principal']): boolean {
  if (statement.Principal === undefined) return true; // an identity policy: its principal is the role it is attached to
  if (statement.Principal === '*') return true;
  return Object.entries(statement.Principal).some(([kind, names]) => {
    // `{"AWS": "*"}` is every principal, services and anonymous callers included, as `"*"` is.
    if (kind === 'AWS' && names.includes('*')) return true;
    const asked = principal?.[kind as 'Service' | 'AWS'];
    return asked !== undefined && names.some((name) => name === '*' || name === asked);
  });
}

function statementApplies(statement: PolicyStatement, request: AccessRequest): boolean {
  const actionMatches = statement.Action
    ? matchesAny(statement.Action, request.action, true)
    : statement.NotAction !== undefined && !matchesAny(statement.NotAction, request.action, true);
  const resourceMatches = statement.Resource
    ? matchesAny(statement.Resource, request.resource, false)
    : statement.NotResource !== undefined && !matchesAny(statement.NotResource, request.resource, false);
  return actionMatches && resourceMatches && principalMatches(statement, request.principal) && conditionsHold(statement.Condition, request.context ?? {});
}

export function evaluate(statements: PolicyStatement[], request: AccessRequest): Decision {
  let allowed = false;
  for (const statement of statements) {
    if (!statementApplies(statement, request)) continue;
    if (statement.Effect === 'Deny') return 'explicitDeny';
    allowed = true;
  }
  return allowed ? 'allowed' : 'implicitDeny';
}
