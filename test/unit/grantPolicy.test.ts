import { describe, expect, it } from 'vitest';
import { evaluate, policyStatement, type PolicyStatement } from '../../lib/local/grants/policy.ts';

const table = 'arn:aws:dynamodb:eu-west-1:123456789012:table/payments-simulated';
const allowReads = policyStatement.parse({ Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: [table, `${table}/index/gsi1`] });

describe('IAM policy evaluation of the local grant check', () => {
  it('allows only what a statement names: action, resource and index one by one', () => {
    expect(evaluate([allowReads], { action: 'dynamodb:GetItem', resource: table })).toBe('allowed');
    expect(evaluate([allowReads], { action: 'dynamodb:Query', resource: `${table}/index/gsi1` })).toBe('allowed');
    expect(evaluate([allowReads], { action: 'dynamodb:Query', resource: `${table}/index/gsi2` })).toBe('implicitDeny');
    expect(evaluate([allowReads], { action: 'dynamodb:PutItem', resource: table })).toBe('implicitDeny');
    expect(evaluate([allowReads], { action: 'dynamodb:GetItem', resource: `${table}-other` })).toBe('implicitDeny');
    expect(evaluate([], { action: 'dynamodb:GetItem', resource: table })).toBe('implicitDeny');
  });

  it('reads actions case-insensitively and resources with IAM wildcards, case-sensitively', () => {
    const wild = policyStatement.parse({ Effect: 'Allow', Action: 'DynamoDB:Get*', Resource: 'arn:aws:dynamodb:*:*:table/pay?ents-*' });
    expect(evaluate([wild], { action: 'dynamodb:GetItem', resource: table })).toBe('allowed');
    expect(evaluate([wild], { action: 'dynamodb:PutItem', resource: table })).toBe('implicitDeny');
    expect(evaluate([wild], { action: 'dynamodb:GetItem', resource: table.toUpperCase() })).toBe('implicitDeny');
  });

  it('lets an explicit deny win over any allow, and reads NotAction and NotResource', () => {
    const deny: PolicyStatement = policyStatement.parse({ Effect: 'Deny', NotAction: 'dynamodb:Query', Resource: '*' });
    expect(evaluate([allowReads, deny], { action: 'dynamodb:GetItem', resource: table })).toBe('explicitDeny');
    expect(evaluate([allowReads, deny], { action: 'dynamodb:Query', resource: table })).toBe('allowed');
    const notResource = policyStatement.parse({ Effect: 'Allow', Action: '*', NotResource: table });
    expect(evaluate([notResource], { action: 'dynamodb:GetItem', resource: `${table}/index/gsi1` })).toBe('allowed');
    expect(evaluate([notResource], { action: 'dynamodb:GetItem', resource: table })).toBe('implicitDeny');
  });

  it('holds a resource policy to its principal and conditions (a queue that takes one rule\'s messages over TLS)', () => {
    const queue = 'arn:aws:sqs:eu-west-1:123456789012:payments-simulated-auditTrail';
    const rule = 'arn:aws:events:eu-west-1:123456789012:rule/payments-simulated/payments-simulated-auditTrail';
    const policy = [
      policyStatement.parse({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:*', Resource: queue, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      policyStatement.parse({ Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Action: ['sqs:SendMessage'], Resource: queue, Condition: { ArnEquals: { 'aws:SourceArn': rule } } }),
    ];
    const asked = { action: 'sqs:SendMessage', resource: queue, principal: { Service: 'events.amazonaws.com' } };
    expect(evaluate(policy, { ...asked, context: { 'aws:SourceArn': rule, 'aws:SecureTransport': 'true' } })).toBe('allowed');
    expect(evaluate(policy, { ...asked, context: { 'aws:SourceArn': `${rule}-other`, 'aws:SecureTransport': 'true' } })).toBe('implicitDeny');
    expect(evaluate(policy, { ...asked, context: { 'aws:SourceArn': rule, 'aws:SecureTransport': 'false' } })).toBe('explicitDeny');
    expect(evaluate(policy, { ...asked, principal: { Service: 'sns.amazonaws.com' }, context: { 'aws:SourceArn': rule, 'aws:SecureTransport': 'true' } })).toBe('implicitDeny');
  });

  it('refuses to guess a condition operator it does not know', () => {
    const unknown = policyStatement.parse({ Effect: 'Allow', Action: '*', Resource: '*', Condition: { DateGreaterThan: { 'aws:CurrentTime': '2026-01-01T00:00:00Z' } } });
    expect(() => evaluate([unknown], { action: 'dynamodb:GetItem', resource: table })).toThrow(/DateGreaterThan is not evaluated/);
  });
});
