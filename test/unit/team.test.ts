import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  acceptLink, emailKey, hashInvitationToken, invitationEmail, invitationExpiry, invitationMailLimits, invitationMailMemorySeconds,
  mayGrant, mayManage, newInvitationToken,
} from '#domain/team.ts';

describe('who may grant and manage which role (contract: only a role below the caller\'s own)', () => {
  it('grants only roles strictly below the caller\'s, and owner never', () => {
    expect(mayGrant('owner', 'admin')).toBe(true);
    expect(mayGrant('owner', 'viewer')).toBe(true);
    expect(mayGrant('admin', 'member')).toBe(true);
    expect(mayGrant('admin', 'admin')).toBe(false);
    expect(mayGrant('member', 'admin')).toBe(false);
    expect(mayGrant('owner', 'owner')).toBe(false);
    expect(mayGrant('viewer', 'viewer')).toBe(false);
  });

  it('manages only members below the caller', () => {
    expect(mayManage('owner', 'admin')).toBe(true);
    expect(mayManage('admin', 'viewer')).toBe(true);
    expect(mayManage('admin', 'admin')).toBe(false);
    expect(mayManage('member', 'admin')).toBe(false);
  });
});

describe('invitations', () => {
  it('one address however it is spelled', () => {
    expect(emailKey('  Ana.Lima@Example.COM ')).toBe('ana.lima@example.com');
  });

  it('store the SHA-256 of the token, never the token', () => {
    expect(hashInvitationToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const { token, hash } = newInvitationToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(newInvitationToken().token).not.toBe(token);
  });

  it('expire their time to live after they are made', () => {
    expect(invitationExpiry(new Date('2026-11-25T12:00:00.000Z'), 90).toISOString()).toBe('2026-11-25T12:01:30.000Z');
  });

  it('link to /invitations/accept on the base URL\'s host, the token as its query parameter', () => {
    expect(acceptLink('https://pay.example', 't-1')).toBe('https://pay.example/invitations/accept?token=t-1');
    expect(acceptLink('https://pay.example//', 'a+b')).toBe('https://pay.example/invitations/accept?token=a%2Bb');
    // A service served under a prefix keeps it: the link names the page the prefix serves.
    expect(acceptLink('https://pay.example/api//', 't-1')).toBe('https://pay.example/api/invitations/accept?token=t-1');
  });

  it('limit the mails to an address: two a minute, six a day, remembered a day (decision 109)', () => {
    expect(invitationMailLimits).toEqual([{ windowSeconds: 60, max: 2 }, { windowSeconds: 86_400, max: 6 }]);
    expect(invitationMailMemorySeconds).toBe(86_400);
  });
});

describe('the invitation e-mail', () => {
  const input = {
    organizationName: 'Acme <Ltd>',
    name: 'Ana & "Bo"',
    role: 'member' as const,
    baseUrl: 'https://pay.example/',
    token: 'tok_123',
    expiresAt: new Date('2026-11-26T12:00:00.000Z'),
  };

  it('carries the link, the API call with the token, the role and the expiry, in both parts', () => {
    const { subject, text, html } = invitationEmail(input);
    expect(subject).toBe('Invitation to join Acme <Ltd>');
    const lines = text.split('\n');
    expect(lines).toContain('https://pay.example/invitations/accept?token=tok_123');
    expect(lines).toContain(`curl -X POST https://pay.example/invitations/accept -H 'content-type: application/json' -d '{"token":"tok_123"}'`);
    expect(text).toContain('organization "Acme <Ltd>" as member.');
    expect(text).toContain('The inviter gave your name as "Ana & \\"Bo\\"".');
    expect(text).toContain('expires at 2026-11-26T12:00:00.000Z');
    expect(text.endsWith('\n')).toBe(true);
    expect(html).toContain('<a href="https://pay.example/invitations/accept?token=tok_123">');
    expect(html).toContain('<strong>&#34;Acme &#60;Ltd&#62;&#34;</strong> as member. The inviter gave your name as &#34;Ana &#38; \\&#34;Bo\\&#34;&#34;.</p>');
    expect(html).toContain('<code>curl -X POST https://pay.example/invitations/accept -H &#39;content-type: application/json&#39; -d &#39;{&#34;token&#34;:&#34;tok_123&#34;}&#39;</code>');
    expect(html).toContain('expires at 2026-11-26T12:00:00.000Z.');
    expect(html.split('\n')).toHaveLength(6);
    expect(html.split('\n').every((line) => line.startsWith('<p>') && line.endsWith('</p>'))).toBe(true);
  });

  it('calls the API under the base URL\'s path, whatever trailing slashes it has', () => {
    const { text } = invitationEmail({ ...input, baseUrl: 'https://pay.example/api//' });
    expect(text).toContain('curl -X POST https://pay.example/api/invitations/accept -H');
  });

  it('says nothing of a name when the inviter gave none', () => {
    const { text, html } = invitationEmail({ ...input, name: null });
    expect(text.split('\n')).toHaveLength(invitationEmail(input).text.split('\n').length - 1);
    expect(text).not.toContain('inviter gave');
    expect(html).not.toContain('inviter gave');
    expect(html).toContain('as member.</p>');
  });

  it('keeps the subject on one line whatever the organization is called', () => {
    expect(invitationEmail({ ...input, organizationName: 'Acme\r\nBcc: x' }).subject).toBe('Invitation to join Acme Bcc: x');
  });
});
