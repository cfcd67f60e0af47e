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

type Matcher = (value: string) => boolean;

/** IAM's wildcard match: `*` any run of characters, `?` one; action names are case-insensitive. */
function wildcard(pattern: string, ignoreCase: boolean): Matcher {
  if (!pattern.includes('*') && !pattern.includes('?')) {
    const exact = ignoreCase ? pattern.toLowerCase() : pattern;
    return ignoreCase ? (value) => value.toLowerCase() === exact : (value) => value === exact;
  }
  const source = pattern.split('').map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  const regex = new RegExp(`^${source}$`, ignoreCase ? 'is' : 's');
  return (value) => regex.test(value);
}

function anyOf(patterns: string[] | undefined, ignoreCase: boolean): Matcher | undefined {
  if (!patterns) return undefined;
  const matchers = patterns.map((pattern) => wildcard(pattern, ignoreCase));
  return (value) => matchers.some((matches) => matches(value));
}

const conditionOperators: Record<string, (expected: string, actual: string) => boolean> = {
  StringEquals: (expected, actual) => expected === actual,
  StringLike: (expected, actual) => wildcard(expected, false)(actual),
  ArnEquals: (expected, actual) => expected === actual,
  ArnLike: (expected, actual) => wildcard(expected, false)(actual),
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

interface CompiledStatement {
  action: Matcher;
  resource: Matcher;
}

/** Each statement's matchers, made once: every SDK call of every function is checked against them. */
const compiled = new WeakMap<PolicyStatement, CompiledStatement>();

function compiledOf(statement: PolicyStatement): CompiledStatement {
  let found = compiled.get(statement);
  if (!found) {
    const action = anyOf(statement.Action, true);
    const notAction = anyOf(statement.NotAction, true);
    const resource = anyOf(statement.Resource, false);
    const notResource = anyOf(statement.NotResource, false);
    found = {
      action: action ?? (notAction ? (value) => !notAction(value) : () => false),
      resource: resource ?? (notResource ? (value) => !notResource(value) : () => false),
    };
    compiled.set(statement, found);
  }
  return found;
}

function statementApplies(statement: PolicyStatement, request: AccessRequest): boolean {
  const { action, resource } = compiledOf(statement);
  return action(request.action) && resource(request.resource) && principalMatches(statement, request.principal) && conditionsHold(statement.Condition, request.context ?? {});
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
