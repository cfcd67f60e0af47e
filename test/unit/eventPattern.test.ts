import { describe, expect, it } from 'vitest';
import { matchesPattern, validatePattern } from '../../lib/local/eventBus.ts';
import { eventRules, eventSource } from '#contract/events.ts';

const event = {
  version: '0',
  id: 'e-1',
  source: eventSource,
  'detail-type': 'transaction.paid_out',
  account: '000000000000',
  region: 'us-east-1',
  time: '2025-01-01T00:00:00Z',
  resources: ['arn:one', 'arn:two'],
  detail: {
    id: 'evt_1',
    type: 'transaction.paid_out',
    organizationId: 'org_1',
    data: { status: 'PAID_OUT', amount: 10, flags: ['instant', 'owned'], nothing: null, nested: { corridor: 'USDC-BRL' } },
  },
};

describe('EventBridge pattern matching on the local bus', () => {
  it('matches exact values, any of a list, all fields together', () => {
    expect(matchesPattern({ source: [eventSource] }, event)).toBe(true);
    expect(matchesPattern({ source: ['other', eventSource] }, event)).toBe(true);
    expect(matchesPattern({ source: ['other'] }, event)).toBe(false);
    expect(matchesPattern({ source: [eventSource], 'detail-type': ['transaction.refunded'] }, event)).toBe(false);
    expect(matchesPattern({}, event)).toBe(true);
  });

  it('compares types strictly: the number 10 is not the string "10"; null matches null', () => {
    expect(matchesPattern({ detail: { data: { amount: [10] } } }, event)).toBe(true);
    expect(matchesPattern({ detail: { data: { amount: ['10'] } } }, event)).toBe(false);
    expect(matchesPattern({ detail: { data: { nothing: [null] } } }, event)).toBe(true);
    expect(matchesPattern({ detail: { data: { missing: [null] } } }, event)).toBe(false);
  });

  it('descends into nested objects of detail', () => {
    expect(matchesPattern({ detail: { data: { nested: { corridor: ['USDC-BRL'] } } } }, event)).toBe(true);
    expect(matchesPattern({ detail: { data: { nested: { corridor: ['USDC-MXN'] } } } }, event)).toBe(false);
    // A nested pattern against a scalar does not match.
    expect(matchesPattern({ detail: { type: { deeper: ['x'] } } }, event)).toBe(false);
  });

  it('matches an array in the event when any element matches', () => {
    expect(matchesPattern({ resources: ['arn:two'] }, event)).toBe(true);
    expect(matchesPattern({ detail: { data: { flags: ['owned'] } } }, event)).toBe(true);
    expect(matchesPattern({ detail: { data: { flags: ['slow'] } } }, event)).toBe(false);
  });

  it('supports prefix', () => {
    expect(matchesPattern({ 'detail-type': [{ prefix: 'transaction.' }] }, event)).toBe(true);
    expect(matchesPattern({ 'detail-type': [{ prefix: 'onramp.' }] }, event)).toBe(false);
    expect(matchesPattern({ detail: { data: { amount: [{ prefix: '1' }] } } }, event)).toBe(false);
  });

  it('supports anything-but with a value, a list and a prefix; an absent field never matches it', () => {
    expect(matchesPattern({ 'detail-type': [{ 'anything-but': 'transaction.refunded' }] }, event)).toBe(true);
    expect(matchesPattern({ 'detail-type': [{ 'anything-but': ['transaction.paid_out', 'x'] }] }, event)).toBe(false);
    expect(matchesPattern({ 'detail-type': [{ 'anything-but': { prefix: 'transaction.' } }] }, event)).toBe(false);
    expect(matchesPattern({ 'detail-type': [{ 'anything-but': { prefix: 'onramp.' } }] }, event)).toBe(true);
    expect(matchesPattern({ detail: { missing: [{ 'anything-but': 'x' }] } }, event)).toBe(false);
  });

  it('supports exists, including on fields and objects that are absent', () => {
    expect(matchesPattern({ detail: { organizationId: [{ exists: true }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { organizationId: [{ exists: false }] } }, event)).toBe(false);
    expect(matchesPattern({ detail: { missing: [{ exists: false }] } }, event)).toBe(true);
    expect(matchesPattern({ detail: { missing: [{ exists: true }] } }, event)).toBe(false);
    expect(matchesPattern({ absent: { inner: [{ exists: false }] } }, event)).toBe(true);
    expect(matchesPattern({ absent: { inner: ['x'] } }, event)).toBe(false);
  });

  it('ORs matchers within one list', () => {
    expect(matchesPattern({ 'detail-type': [{ prefix: 'onramp.' }, 'transaction.paid_out'] }, event)).toBe(true);
  });

  it('refuses patterns EventBridge would refuse or this bus does not implement', () => {
    expect(() => validatePattern({ source: eventSource })).toThrow(/array/);
    expect(() => validatePattern({ source: [] })).toThrow(/empty/);
    expect(() => validatePattern({ detail: { amount: [{ numeric: ['>', 0] }] } })).toThrow(/unsupported/);
    expect(() => validatePattern({ source: [{ prefix: 1 }] })).toThrow(/prefix/);
    expect(() => validatePattern({ source: [{ exists: 'yes' }] })).toThrow(/exists/);
    expect(() => validatePattern({ source: [{ 'anything-but': [] }] })).toThrow(/anything-but/);
    expect(() => validatePattern({ source: [{ prefix: 'a', exists: true }] })).toThrow(/unsupported/);
  });

  it('accepts every rule the service declares', () => {
    for (const rule of eventRules) expect(() => validatePattern(rule.pattern, rule.name)).not.toThrow();
  });
});
