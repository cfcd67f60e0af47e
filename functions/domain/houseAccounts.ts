/**
 * The house bank accounts: where organizations wire USD and EUR to fund their balance. They are
 * the service's own (the beneficiary is its legal entity), one per currency, and come from
 * configuration: `HOUSE_ACCOUNTS`, a JSON array read once with the rest of the environment
 * (functions/platform/config.ts). `simulated` without it shows the fixed simulated accounts
 * below; any other environment without it has none, and GET /treasury/deposit-instructions
 * answers 501 (docs/decisions/053-deposit-instructions.md).
 *
 * A configuration that would publish wrong bank details is refused when the service starts, not
 * on the first customer's wire: unknown fields, a currency twice, an account with neither IBAN nor
 * account number, an IBAN whose check digits fail, a malformed BIC.
 */
import { ibanChecksumValid } from '#domain/iban.ts';
import * as z from 'zod/mini';

export const houseAccountCurrencies = ['USD', 'EUR'] as const;
export type HouseAccountCurrency = (typeof houseAccountCurrencies)[number];

export interface HouseAccount {
  currency: HouseAccountCurrency;
  accountName: string;
  bankName?: string;
  iban?: string;
  accountNumber?: string;
  bic?: string;
  bankAddress?: string;
}

/** An IBAN in electronic form (no spaces, upper case) whose ISO 7064 MOD 97-10 check holds. */
export const isValidIban = ibanChecksumValid;

/** A field that is not held is absent: a blank value in the configuration means not held, never an empty string sent. */
const held = (max: number) =>
  z.pipe(
    z.optional(z.string().check(z.maxLength(max))),
    z.transform((value) => value?.trim() || undefined),
  );

/**
 * The schemas are built when asked for, not when the module loads: every Lambda imports this file
 * through its configuration and most never read HOUSE_ACCOUNTS (building them took a few ms of each
 * cold import), and a schema built per call lets mutation testing reach what the chain itself says.
 */
const houseAccountConfig = () =>
  z.pipe(
    z
      .strictObject({
        currency: z.enum(houseAccountCurrencies),
        accountName: z.string().check(z.trim(), z.minLength(1), z.maxLength(140)),
        bankName: held(140),
        iban: z.pipe(
          held(42),
          // Stryker disable next-line Regex: equivalent, a global replace of each blank and of each run of them leave the same
          z.transform((value) => value?.replace(/\s+/g, '').toUpperCase()),
        ),
        accountNumber: held(40),
        bic: z.pipe(
          held(11),
          z.transform((value) => value?.toUpperCase()),
        ),
        bankAddress: held(280),
      })
      .check(
        z.refine((account) => account.iban !== undefined || account.accountNumber !== undefined, {
          message: 'an account needs an iban or an accountNumber: there is nowhere to send money otherwise',
        }),
        z.refine((account) => account.iban === undefined || isValidIban(account.iban), { message: 'iban fails its check digits', path: ['iban'] }),
        z.refine((account) => account.bic === undefined || /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(account.bic), {
          message: 'bic must be 8 or 11 characters (ISO 9362)',
          path: ['bic'],
        }),
      ),
    z.transform((account): HouseAccount => {
      // Only the fields held: never a key with an undefined value, which a spread would carry along.
      return Object.fromEntries(Object.entries(account).filter(([, value]) => value !== undefined)) as unknown as HouseAccount;
    }),
  );

export const houseAccountList = () =>
  z.array(houseAccountConfig()).check(
    z.refine((accounts) => new Set(accounts.map((account) => account.currency)).size === accounts.length, {
      message: 'one account per currency: a currency is configured twice',
    }),
  );

/** `HOUSE_ACCOUNTS` as the environment holds it: JSON text, parsed and checked. */
export const houseAccountsVariable = () =>
  z.pipe(
    z.pipe(
      z.string(),
      z.transform((text, context) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          context.issues.push({ code: 'custom', message: 'HOUSE_ACCOUNTS must be a JSON array of accounts', input: text });
          return z.NEVER;
        }
      }),
    ),
    houseAccountList(),
  );

/**
 * What `simulated` shows when nothing is configured. Every detail says it is simulated and the
 * bank code SIMU names no bank; the IBAN is well-formed (its check digits hold) so that clients
 * validating it work as they will against real details. Nothing sent here arrives anywhere.
 */
export const simulatedHouseAccounts: readonly HouseAccount[] = [
  {
    currency: 'USD',
    accountName: 'Cross-Border Payments (Simulated) Ltd',
    bankName: 'Simulated Bank N.A. (simulated: no money moves)',
    accountNumber: '8000012345',
    bic: 'SIMUUS33',
    bankAddress: '1 Example Plaza, New York, NY 10001, United States',
  },
  {
    currency: 'EUR',
    accountName: 'Cross-Border Payments (Simulated) Ltd',
    bankName: 'Simulated Bank Europe (simulated: no money moves)',
    iban: 'IE12SIMU99000012345678',
    bic: 'SIMUIE2D',
    bankAddress: '1 Example Quay, Dublin D02 X000, Ireland',
  },
];

/** The accounts in force: the configured ones, else the simulated ones in `simulated`, else none. */
export function houseAccountsFor(environment: string, configured: readonly HouseAccount[] | undefined): readonly HouseAccount[] {
  if (configured !== undefined) return configured;
  return environment === 'simulated' ? simulatedHouseAccounts : [];
}
