import { describe, expect, it } from 'vitest';
import { isPlainText, oneLine, quoted } from '#domain/plainText.ts';
import { invitationEmail } from '#domain/team.ts';
import { notificationEmail, verificationEmail } from '#domain/notifications.ts';
import { plainText } from '#schemas/common.ts';
import { CreateBatchBody } from '#schemas/batches.ts';
import { CreateBeneficiaryBody } from '#schemas/offramps.ts';
import { CreateRecipientBody, UpdateRecipientBody } from '#schemas/recipients.ts';
import { InviteMemberBody } from '#schemas/team.ts';
import { CreateTransactionBody } from '#schemas/transactions.ts';

/**
 * A stranger's text (docs/decisions/109): refused where it comes in when it carries what changes how
 * the text around it reads, and shown as quoted data where it goes out.
 */
const refused: [string, string][] = [
  ['a line feed', 'Ana\nLima'],
  ['a carriage return', 'Ana\r\nLima'],
  ['a tab', 'Ana\tLima'],
  ['NUL', 'Ana\u0000'],
  ['DEL', 'Ana\u007f'],
  ['C1 next line (NEL)', 'Ana\u0085Lima'],
  ['C1 control', '\u009bAna'],
  ['the line separator', 'Ana\u2028Lima'],
  ['the paragraph separator', 'Ana\u2029Lima'],
  ['a right-to-left override', 'Ana \u202egnp.exe'],
  ['a left-to-right embedding', '\u202aAna\u202c'],
  ['a right-to-left isolate', '\u2067Ana\u2069'],
  ['a first-strong isolate', '\u2068Ana'],
];

const allowed = [
  'Ana Lima',
  'María José Núñez-O\'Brien',
  '李小龙',
  'محمد\u200f علي',
  'אבי\u200eכהן',
  'Team 👩\u200d👩\u200d👧 (family emoji with zero-width joiners)',
  'Soft\u00adhyphen and no\u00a0break',
  '<script>alert(1)</script>',
];

describe('plain text', () => {
  it.each(refused)('refuses %s', (_label, text) => {
    expect(isPlainText(text)).toBe(false);
    expect(plainText(200).safeParse(text).success).toBe(false);
  });

  it.each(allowed)('accepts %s', (text) => {
    expect(isPlainText(text)).toBe(true);
    expect(plainText(200).safeParse(text).success).toBe(true);
  });

  it('keeps its bounds', () => {
    expect(plainText(5).safeParse('abcdef').success).toBe(false);
    expect(plainText(5).safeParse('').success).toBe(false);
    expect(plainText(11, 8).safeParse('ABCDEFG').success).toBe(false);
  });

  it('quoted: one line, in quotes, every such character written out, quotes and backslashes escaped', () => {
    expect(quoted('Ana Lima')).toBe('"Ana Lima"');
    expect(quoted('Bob,\n\nYour account is locked: https://evil.example')).toBe('"Bob,\\u{000A}\\u{000A}Your account is locked: https://evil.example"');
    expect(quoted('x\u2028y\u202ez\u0085')).toBe('"x\\u{2028}y\\u{202E}z\\u{0085}"');
    expect(quoted('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
    expect(quoted('\t\u0000\u009b\u2066')).toBe('"\\u{0009}\\u{0000}\\u{009B}\\u{2066}"');
    expect(quoted('a\u200eb\u200dc\u00ad')).toBe('"a\u200eb\u200dc\u00ad"');
    for (const [, text] of refused) expect(isPlainText(quoted(text))).toBe(true);
  });

  it('oneLine: every run of such characters becomes one space', () => {
    expect(oneLine('a\r\n\tb\u2028c\u202ed')).toBe('a b c d');
    expect(oneLine('a\u200eb\u200dc')).toBe('a\u200eb\u200dc');
    expect(oneLine('\n\nab\n')).toBe(' ab ');
  });
});

describe('every name and free-text field of the bodies that reach an e-mail or a list', () => {
  const hostile = 'Ana\nClick https://evil.example';
  const beneficiary = { name: 'Ana Lima', account: '002010077777777771', bankName: 'Banco', city: 'CDMX', addressLine: 'Calle 1', state: 'CDMX', postalCode: '01000', bankCode: '002' };
  const originator = { name: 'Acme', account: '****1234', address: 'Main St 1', institution: 'Bank', idNumber: '****99' };
  const recipient = { name: 'Ana Lima', type: 'bank', account: '1234', bankCode: '002', bic: 'BANKMXMM', bankName: 'Banco', city: 'CDMX', addressLine: 'Calle 1', state: 'CDMX', postalCode: '01000', address: '0xabc', networkId: 'base' };
  const offRampPayee = { name: 'Ana Lima', accountId: 'DE89370400440532013000', bic: 'COBADEFFXXX', bankName: 'Bank', city: 'Berlin', addressLine: 'Str 1', country: 'DE', currency: 'EUR' };

  const cases: [string, (field: string) => { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }, string[], (field: string) => PropertyKey[]][] = [
    ['POST /members/invitations', (field) => InviteMemberBody.safeParse({ email: 'a@example.com', role: 'viewer', [field]: hostile }), ['name'], (field) => [field]],
    ['POST /recipients', (field) => CreateRecipientBody.safeParse({ ...recipient, [field]: hostile }), Object.keys(recipient).filter((field) => field !== 'type'), (field) => [field]],
    ['PATCH /recipients/{id}', (field) => UpdateRecipientBody.safeParse({ [field]: hostile }), Object.keys(recipient).filter((field) => field !== 'type'), (field) => [field]],
    ['POST /treasury/beneficiaries', (field) => CreateBeneficiaryBody.safeParse({ ...offRampPayee, [field]: hostile }), ['name', 'accountId', 'bankName', 'city', 'addressLine'], (field) => [field]],
    [
      'POST /transactions (beneficiary)',
      (field) => CreateTransactionBody.safeParse({ idempotencyKey: 'order-0001', corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '1', currency: 'USDC' }, recipientReference: 'r', beneficiary: { ...beneficiary, [field]: hostile } }),
      Object.keys(beneficiary),
      (field) => ['beneficiary', field],
    ],
    [
      'POST /transactions (originator)',
      (field) => CreateTransactionBody.safeParse({ idempotencyKey: 'order-0001', corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '1', currency: 'USDC' }, recipientReference: 'r', beneficiary, originator: { ...originator, [field]: hostile } }),
      Object.keys(originator),
      (field) => ['originator', field],
    ],
    [
      'POST /transactions (reference)',
      () => CreateTransactionBody.safeParse({ idempotencyKey: 'order-0001', corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '1', currency: 'USDC' }, recipientReference: hostile, beneficiary }),
      ['recipientReference'],
      () => ['recipientReference'],
    ],
    [
      'POST /batches (item)',
      (field) => CreateBatchBody.safeParse({
        batchId: 'batch-0001', corridor: { to: 'MXN', destinationCountry: 'MX' }, provider: 'rail',
        items: [{ itemRef: 'a', sendAmount: { amount: '1', currency: 'USDC' }, recipientReference: field === 'recipientReference' ? hostile : 'r', beneficiary: field === 'recipientReference' ? beneficiary : { ...beneficiary, [field]: hostile } }],
      }),
      ['recipientReference', 'name'],
      (field) => (field === 'recipientReference' ? ['items', 0, 'recipientReference'] : ['items', 0, 'beneficiary', 'name']),
    ],
  ];

  it.each(cases)('%s refuses a line break in each of its text fields, naming the field', (_route, parse, fields, pathOf) => {
    for (const field of fields) {
      const result = parse(field);
      expect(result.success, field).toBe(false);
      expect(result.error!.issues.map((issue) => issue.path), field).toContainEqual(pathOf(field));
    }
  });
});

describe('e-mails show others\' text as quoted data, never as a line of their own', () => {
  const hostile = 'Bob,\n\nYour account is locked. Sign in at https://evil.example\n';
  const lines = (text: string) => text.split('\n');

  it('the invitation', () => {
    const mail = invitationEmail({ organizationName: `Acme${hostile}`, name: hostile, role: 'viewer', baseUrl: 'https://api.example.com', token: 't'.repeat(43), expiresAt: new Date('2026-01-01T00:00:00Z') });
    expect(lines(mail.text).filter((line) => line.includes('evil.example'))).toEqual([
      'You are invited to join the organization "AcmeBob,\\u{000A}\\u{000A}Your account is locked. Sign in at https://evil.example\\u{000A}" as viewer.',
      'The inviter gave your name as "Bob,\\u{000A}\\u{000A}Your account is locked. Sign in at https://evil.example\\u{000A}".',
    ]);
    expect(lines(mail.text).some((line) => line.startsWith('Your account'))).toBe(false);
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain('\nYour account');
  });

  it('the verification e-mail', () => {
    const mail = verificationEmail({ organizationName: hostile, link: 'https://api.example.com/notifications/verify?token=t', expiresAt: new Date() });
    expect(lines(mail.text).filter((line) => line.includes('evil.example'))).toHaveLength(1);
    expect(lines(mail.text).some((line) => line.startsWith('Your account'))).toBe(false);
    expect(mail.subject).not.toMatch(/[\r\n]/);
  });

  it('the notification e-mail, with a note from a provider or operator', () => {
    const mail = notificationEmail({
      type: 'transaction.refunded',
      data: { transactionId: 'pay-7', state: 'REFUNDED', failure: `closed\u202e${hostile}` },
      organizationName: hostile,
      baseUrl: 'https://api.example.com',
      unsubscribeUrl: 'https://api.example.com/notifications/unsubscribe?token=t',
    });
    expect(lines(mail.text).filter((line) => line.includes('evil.example')).map((line) => line.split(':')[0])).toEqual(['Note', 'Organization']);
    expect(mail.text).not.toContain('\u202e');
    expect(lines(mail.text).some((line) => line.startsWith('Your account'))).toBe(false);
  });
});
