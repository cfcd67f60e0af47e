import { describe, expect, it } from 'vitest';
import { invitationMailWait, withInvitationMail } from '#domain/team.ts';

/** The re-send limit's arithmetic (docs/decisions/109): two a minute, six a day, to one address. */
const now = new Date('2026-11-25T12:00:00.000Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

describe('invitationMailWait', () => {
  it('lets the first two go at once, then waits for the minute of the earlier one', () => {
    expect(invitationMailWait([], now)).toBe(0);
    expect(invitationMailWait([ago(1)], now)).toBe(0);
    expect(invitationMailWait([ago(10), ago(1)], now)).toBe(50);
    expect(invitationMailWait([ago(59.5), ago(1)], now)).toBe(1);
    expect(invitationMailWait([ago(60), ago(1)], now)).toBe(0);
  });

  it('six in a day: the seventh waits until the oldest of them is a day old', () => {
    const six = [ago(5 * 3600), ago(4 * 3600), ago(3 * 3600), ago(2 * 3600), ago(3600), ago(120)];
    expect(invitationMailWait(six, now)).toBe(19 * 3600);
    expect(invitationMailWait(six.slice(1), now)).toBe(0);
    expect(invitationMailWait([ago(24 * 3600), ...six.slice(1)], now)).toBe(0);
  });

  it('takes the longer of the two waits, in whole seconds of at least one', () => {
    const crowded = [ago(3000), ago(2000), ago(1000), ago(500), ago(30), ago(0.2)];
    expect(invitationMailWait(crowded, now)).toBe(24 * 3600 - 3000);
    expect(invitationMailWait([ago(59.999), ago(0)], now)).toBe(1);
  });

  it('remembers a day of sends and no more', () => {
    expect(withInvitationMail([ago(24 * 3600 + 1), ago(30)], now)).toEqual([ago(30), now.toISOString()]);
    expect(withInvitationMail([ago(30), ago(24 * 3600), ago(24 * 3600 - 1)], now)).toEqual([ago(24 * 3600 - 1), ago(30), now.toISOString()]);
  });

  it('reads the sends in any order', () => {
    expect(invitationMailWait([ago(1), ago(10)], now)).toBe(50);
    const six = [ago(120), ago(3600), ago(5 * 3600), ago(2 * 3600), ago(4 * 3600), ago(3 * 3600)];
    expect(invitationMailWait(six, now)).toBe(19 * 3600);
  });
});
