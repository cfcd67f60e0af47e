import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatMoney } from '#domain/money.ts';
import {
  isNotificationEventType, isUnsubscribeTokenValid, newUnsubscribeKey, notificationEmail, notificationEventTypes, readUnsubscribeToken,
  unsubscribeLink, unsubscribeToken, verificationEmail, verificationLink,
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

describe('notification links', () => {
  it('open the verify and unsubscribe pages on the base URL\'s host, the token as the query parameter', () => {
    expect(verificationLink('https://a.example', 'v+1')).toBe('https://a.example/notifications/verify?token=v%2B1');
    expect(unsubscribeLink('https://a.example//', 'u1')).toBe('https://a.example/notifications/unsubscribe?token=u1');
    expect(verificationLink('https://a.example/pay/', 'v1')).toBe('https://a.example/pay/notifications/verify?token=v1');
    expect(unsubscribeLink('https://a.example/pay', 'u1')).toBe('https://a.example/pay/notifications/unsubscribe?token=u1');
  });

  it('are for the contract\'s event types only', () => {
    expect(notificationEventTypes).toEqual(['transaction.paid_out', 'transaction.reconciled', 'transaction.refunded', 'transaction.in_doubt', 'onramp.delivered', 'onramp.refunded', 'offramp.paid']);
    expect(isNotificationEventType('offramp.paid')).toBe(true);
    expect(isNotificationEventType('offramp.refunded')).toBe(false);
  });
});

describe('an unsubscribe token', () => {
  const claims = { organizationId: 'org_1', memberId: 'mem_1', eventType: 'onramp.delivered' as const, keyVersion: 2 };
  const payloadOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it('is the claims in JSON, base64url, then their HMAC-SHA256 under the member key', () => {
    const key = 'k';
    const payload = payloadOf(['org_1', 'mem_1', 'onramp.delivered', 2]);
    expect(unsubscribeToken(key, claims)).toBe(`${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`);
    const accented = { ...claims, memberId: 'mém' };
    expect(readUnsubscribeToken(unsubscribeToken(key, accented))).toEqual(accented);
    expect(newUnsubscribeKey()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('is read only in its own shape: two parts, three or four claims, non-empty names, a known event', () => {
    const mac = 'bWFj';
    expect(readUnsubscribeToken(`${payloadOf(['o', 'm', 'offramp.paid'])}.${mac}`)).toEqual({ organizationId: 'o', memberId: 'm', eventType: 'offramp.paid', keyVersion: 1 });
    for (const token of [
      `${payloadOf(['o', 'm', 'offramp.paid'])}.${mac}.x`,
      `${payloadOf(['o', 'm', 'offramp.paid'])}.`,
      `.${mac}`,
      `${payloadOf(['o', 'm'])}.${mac}`,
      `${payloadOf(['o', 'm', 'offramp.paid', 1, 'x'])}.${mac}`,
      `${payloadOf({ 0: 'o', 1: 'm', 2: 'offramp.paid', length: 3 })}.${mac}`,
      `${payloadOf(['', 'm', 'offramp.paid'])}.${mac}`,
      `${payloadOf(['o', '', 'offramp.paid'])}.${mac}`,
      `${payloadOf(['o', 'm', ''])}.${mac}`,
      `${payloadOf(['o', 7, 'offramp.paid'])}.${mac}`,
      `${payloadOf(['o', 'm', 'offramp.unknown'])}.${mac}`,
      `${Buffer.from('not json').toString('base64url')}.${mac}`,
    ]) {
      expect(readUnsubscribeToken(token), token).toBeUndefined();
    }
  });

  it('is valid only with both parts and a signature of the right length', () => {
    const key = newUnsubscribeKey();
    const token = unsubscribeToken(key, claims);
    const [payload, mac] = token.split('.') as [string, string];
    expect(isUnsubscribeTokenValid(key, payload)).toBe(false);
    expect(isUnsubscribeTokenValid(key, `.${mac}`)).toBe(false);
    expect(isUnsubscribeTokenValid(key, `${payload}.${mac.slice(0, -2)}`)).toBe(false);
  });
});

describe('a notification e-mail\'s content', () => {
  const base = { organizationName: 'Acme', baseUrl: 'https://a.example/', unsubscribeUrl: 'https://a.example/u?token=1&x=2' };
  const money = (amount: string, currency: string, scale?: number) => ({ amount, currency, ...(scale === undefined ? {} : { scale }) });
  /** The block of `label: value` lines: after the greeting and the headline, up to the next blank line. */
  const rows = (text: string) => {
    const lines = text.split('\n').slice(4);
    return lines.slice(0, lines.indexOf(''));
  };

  it('a payment paid out: what the recipient got, against the quote, its state and where to read it', () => {
    const mail = notificationEmail({
      ...base,
      type: 'transaction.paid_out',
      data: {
        transactionId: 'tx-1', state: 'PAID_OUT', receiveAmount: money('457900', 'MXN', 2),
        payoutDelta: { quoted: money('458000', 'MXN', 2), difference: money('-100', 'MXN', 2) },
      },
    });
    expect(mail.subject).toBe('Payment tx-1 paid out: 4,579.00 MXN sent to the recipient');
    expect(rows(mail.text)).toEqual([
      'Operation id: tx-1', 'Paid to the recipient: 4,579.00 MXN', 'Quoted: 4,580.00 MXN', 'Difference from the quote: -1.00 MXN', 'State: PAID_OUT', 'Organization: "Acme"',
    ]);
    expect(mail.text).toContain('Payment tx-1 paid out: 4,579.00 MXN sent to the recipient.\n');
    expect(mail.text).toContain('GET /transactions/tx-1 (https://a.example/transactions/tx-1)');
    expect(mail.text).toContain('Stop e-mails about transaction.paid_out: https://a.example/u?token=1&x=2\n');
    expect(mail.html).toContain('<p><strong>Payment tx-1 paid out: 4,579.00 MXN sent to the recipient.</strong></p>');
    expect(mail.html).toContain('<tr><th align="left">Quoted</th><td>4,580.00 MXN</td></tr>');
    expect(mail.html).toContain('<tr><th align="left">Organization</th><td>&#34;Acme&#34;</td></tr>');
    expect(mail.html).toContain('<p>Read it with <code>GET /transactions/tx-1</code>.</p>');
    expect(mail.html).toContain('<a href="https://a.example/u?token=1&#38;x=2">Stop e-mails about transaction.paid_out</a>.</p>');
    expect(mail.html.split('\n')).toHaveLength(6 + 6); // hello, headline, table open and close, 6 rows, read, stop
  });

  it('a payment reconciled or in doubt, a deposit refunded: the headline says which', () => {
    const subject = (type: Parameters<typeof notificationEmail>[0]['type'], data: unknown) => notificationEmail({ ...base, type, data }).subject;
    expect(subject('transaction.reconciled', { transactionId: 'tx-2', receiveAmount: money('100', 'EUR') })).toBe('Payment tx-2 reconciled: 1.00 EUR paid');
    expect(subject('transaction.reconciled', { transactionId: 'tx-2', receiveAmount: { amount: 100, currency: 'EUR' } })).toBe('Payment tx-2 reconciled');
    expect(subject('transaction.reconciled', { transactionId: 'tx-2', receiveAmount: { amount: '100', currency: 5 } })).toBe('Payment tx-2 reconciled');
    expect(subject('transaction.reconciled', { transactionId: 'tx-2', receiveAmount: 'x' })).toBe('Payment tx-2 reconciled');
    expect(subject('transaction.reconciled', { transactionId: 'tx-2', receiveAmount: null })).toBe('Payment tx-2 reconciled');
    expect(subject('transaction.in_doubt', { transactionId: 7 })).toBe('Payment unknown is in doubt: it is parked until operations confirm the payout');
    expect(subject('onramp.refunded', { onRampId: 'dep-2', net: money('1', 'USDC', 6) })).toBe('Deposit dep-2 refunded: the payer\'s money was returned');
    expect(subject('onramp.delivered', null)).toBe('Deposit unknown delivered');
    expect(subject('offramp.paid', 'x')).toBe('Off-ramp unknown paid');
  });

  it('uses a figure\'s own scale, else its currency\'s', () => {
    const mail = notificationEmail({ ...base, type: 'transaction.reconciled', data: { transactionId: 't', receiveAmount: { amount: '1234', currency: 'USD', scale: 3 } } });
    expect(rows(mail.text)).toContain('Paid to the recipient: 1.234 USD');
    const noScale = notificationEmail({ ...base, type: 'transaction.reconciled', data: { transactionId: 't', receiveAmount: { amount: '1234', currency: 'USD', scale: '3' } } });
    expect(rows(noScale.text)).toContain('Paid to the recipient: 12.34 USD');
  });

  it('a deposit and an off-ramp: their figures, state and reading path', () => {
    const usdc = (amount: string) => money(amount, 'USDC', 6);
    const deposit = notificationEmail({ ...base, type: 'onramp.delivered', data: { onRampId: 'dep-1', state: 'DELIVERED', gross: usdc('2000000'), fee: usdc('10000'), net: usdc('1990000') } });
    expect(rows(deposit.text)).toEqual(['Operation id: dep-1', 'Received: 2.000000 USDC', 'Fee: 0.010000 USDC', 'Credited: 1.990000 USDC', 'State: DELIVERED', 'Organization: "Acme"']);
    expect(deposit.text).toContain('GET /treasury/onramp/dep-1 (https://a.example/treasury/onramp/dep-1)');
    const offRamp = notificationEmail({
      ...base, type: 'offramp.paid',
      data: { offRampId: 'off-1', state: 'PAID', credited: usdc('100000000'), fee: usdc('500000'), deliveryFee: usdc('500000'), net: money('9029', 'EUR', 2) },
    });
    expect(rows(offRamp.text)).toEqual([
      'Operation id: off-1', 'USDC taken: 100.000000 USDC', 'Fee: 0.500000 USDC', 'Delivery fee: 0.500000 USDC', 'Paid out: 90.29 EUR', 'State: PAID', 'Organization: "Acme"',
    ]);
    expect(offRamp.text).toContain('GET /treasury/offramp/off-1 (https://a.example/treasury/offramp/off-1)');
  });

  it('masks an account in a note, however it is spaced, and shows no row that has no value', () => {
    const note = (failure: unknown) => rows(notificationEmail({ ...base, type: 'transaction.refunded', data: { transactionId: 't', failure } }).text);
    expect(note('Refused GB12 3456 7890-1234 by the bank')).toContain('Note: "Refused ************1234 by the bank"');
    expect(note('Refused GB 1234 5678-9012 by the bank')).toContain('Note: "Refused GB ********9012 by the bank"');
    expect(note('Refused DE89370400440532013000')).toContain('Note: "Refused ******************3000"');
    expect(note('Code 12345678 is eight')).toContain('Note: "Code ****5678 is eight"');
    expect(note('Code 1234567 stays')).toContain('Note: "Code 1234567 stays"');
    expect(note(42)).toEqual(['Operation id: t', 'Organization: "Acme"']);
    expect(note('')).toEqual(['Operation id: t', 'Organization: "Acme"']);
  });
});

describe('the verification e-mail', () => {
  it('carries its one link, its expiry and the organization quoted, escaped in HTML', () => {
    const mail = verificationEmail({ organizationName: 'Acme <Ltd>\n', link: 'https://a.example/notifications/verify?token=t&x', expiresAt: new Date('2026-11-26T12:00:00.000Z') });
    expect(mail.subject).toBe('Verify your address for Acme <Ltd>  notifications');
    const lines = mail.text.split('\n');
    expect(lines).toContain('https://a.example/notifications/verify?token=t&x');
    expect(mail.text).toContain('organization "Acme <Ltd>\\u{000A}":');
    expect(mail.text).toContain('expires at 2026-11-26T12:00:00.000Z.');
    expect(mail.html.split('\n')).toHaveLength(5);
    expect(mail.html).toContain('<strong>&#34;Acme &#60;Ltd&#62;\\u{000A}&#34;</strong>.</p>');
    expect(mail.html).toContain('<p><a href="https://a.example/notifications/verify?token=t&#38;x">Verify this address</a></p>');
    expect(mail.html).toContain('expires at 2026-11-26T12:00:00.000Z. A newer');
  });
});
