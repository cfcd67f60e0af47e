import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatMoney } from '#domain/money.ts';
import {
  isUnsubscribeTokenValid, newUnsubscribeKey, notificationEmail, readUnsubscribeToken, unsubscribeToken,
} from '#domain/notifications.ts';

describe('money for people', () => {
  it('groups whole units by three and keeps every decimal of the scale, exactly', () => {
    expect(formatMoney({ amount: '457900', currency: 'MXN', scale: 2 })).toBe('4,579.00 MXN');
    expect(formatMoney({ amount: '1000000000000001', currency: 'USDC', scale: 6 })).toBe('1,000,000,000.000001 USDC');
    expect(formatMoney({ amount: '-12345', currency: 'EUR', scale: 2 })).toBe('-123.45 EUR');
    expect(formatMoney({ amount: '5', currency: 'USD', scale: 2 })).toBe('0.05 USD');
    // A nested money object may omit its scale: the currency's is used.
    expect(formatMoney({ amount: '25000000', currency: 'VND' })).toBe('25,000,000 VND');
    expect(formatMoney({ amount: '999', currency: 'XYZ' })).toBe('999 XYZ');
  });
});

describe('unsubscribe tokens', () => {
  const claims = { organizationId: 'org_1', memberId: 'mem_1', eventType: 'transaction.reconciled' as const, keyVersion: 3 };

  it('name the member and event and verify only under the member key', () => {
    const key = newUnsubscribeKey();
    const token = unsubscribeToken(key, claims);
    expect(readUnsubscribeToken(token)).toEqual(claims);
    expect(isUnsubscribeTokenValid(key, token)).toBe(true);
    expect(isUnsubscribeTokenValid(newUnsubscribeKey(), token)).toBe(false);
  });

  it('cannot be moved to another event type or member', () => {
    const key = newUnsubscribeKey();
    const [, mac] = unsubscribeToken(key, claims).split('.');
    const other = Buffer.from(JSON.stringify(['org_1', 'mem_1', 'transaction.refunded'])).toString('base64url');
    expect(isUnsubscribeTokenValid(key, `${other}.${mac}`)).toBe(false);
    expect(readUnsubscribeToken('not-a-token')).toBeUndefined();
    expect(readUnsubscribeToken(`${Buffer.from('["a","b","transaction.funded"]').toString('base64url')}.x`)).toBeUndefined();
  });

  it('name the version of the key that signed them, which cannot be moved either (decision 110)', () => {
    const key = newUnsubscribeKey();
    const [, mac] = unsubscribeToken(key, claims).split('.');
    const older = Buffer.from(JSON.stringify(['org_1', 'mem_1', 'transaction.reconciled', 2])).toString('base64url');
    expect(readUnsubscribeToken(`${older}.${mac}`)).toEqual({ ...claims, keyVersion: 2 });
    expect(isUnsubscribeTokenValid(key, `${older}.${mac}`)).toBe(false);
    for (const version of [0, -1, 1.5, '2', null]) {
      const odd = Buffer.from(JSON.stringify(['org_1', 'mem_1', 'transaction.reconciled', version])).toString('base64url');
      expect(readUnsubscribeToken(`${odd}.${mac}`), String(version)).toBeUndefined();
    }
  });

  it('a token from before versions names none: it is version 1, the first key\'s', () => {
    const key = newUnsubscribeKey();
    const payload = Buffer.from(JSON.stringify(['org_1', 'mem_1', 'transaction.refunded'])).toString('base64url');
    const mac = createHmac('sha256', key).update(payload, 'utf8').digest('base64url');
    expect(readUnsubscribeToken(`${payload}.${mac}`)).toEqual({ organizationId: 'org_1', memberId: 'mem_1', eventType: 'transaction.refunded', keyVersion: 1 });
    expect(isUnsubscribeTokenValid(key, `${payload}.${mac}`)).toBe(true);
  });
});

describe('notification e-mail', () => {
  it('says what happened with money, the operation id, and no account number from a free-text note', () => {
    const mail = notificationEmail({
      type: 'transaction.refunded',
      data: { transactionId: 'pay-7', state: 'REFUNDED', failure: 'Rail refused account 12345678901234 (closed)' },
      organizationName: 'Acme <Ltd>',
      baseUrl: 'https://api.example.com',
      unsubscribeUrl: 'https://api.example.com/notifications/unsubscribe?token=t',
    });
    expect(mail.subject).toBe('Payment pay-7 refunded: the held USDC is back in your balance');
    expect(mail.text).toContain('Operation id: pay-7');
    expect(mail.text).toContain('**********1234');
    expect(mail.text).not.toContain('12345678901234');
    expect(mail.html).toContain('Acme &#60;Ltd&#62;');
    expect(mail.html).not.toContain('<Ltd>');
  });

  it('names deposits and off-ramps with their figures', () => {
    const base = { organizationName: 'Acme', baseUrl: 'https://a.example', unsubscribeUrl: 'https://a.example/u' };
    const usdc = (amount: string) => ({ amount, currency: 'USDC', scale: 6 });
    expect(notificationEmail({ ...base, type: 'onramp.delivered', data: { onRampId: 'dep-1', gross: usdc('1000000000'), fee: usdc('5000000'), net: usdc('995000000') } }).subject)
      .toBe('Deposit dep-1 delivered: 995.000000 USDC credited to your balance');
    const offRamp = notificationEmail({ ...base, type: 'offramp.paid', data: { offRampId: 'off-1', net: { amount: '91250', currency: 'EUR', scale: 2 } } });
    expect(offRamp.subject).toBe('Off-ramp off-1 paid: 912.50 EUR paid out');
    expect(offRamp.text).toContain('Paid out: 912.50 EUR');
  });
});
