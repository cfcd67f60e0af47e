/**
 * The corridor catalogue: where a payment can go, through which routes, and what each rail
 * needs to know about the beneficiary. GET /capabilities publishes `corridors`; quotes and
 * payments choose a route from `routes` (functions/domain/pricing.ts); the payout simulator
 * refuses what `beneficiaryProblems` reports, as the real rail would
 * (docs/decisions/040-corridors-and-outcome-bands.md).
 */
import { ibanChecksumValid } from '#domain/iban.ts';
import type { Beneficiary } from '#schemas/transactions.ts';

/** The capabilities view of a corridor (contract: Capabilities). */
export interface Corridor {
  from: string;
  to: string;
  destinationCountry: string;
  ownedRail: boolean;
  instant: boolean;
}

/** One way to pay a corridor out. */
export interface CorridorRoute {
  /** Opaque route label, shown as `provider` on quotes and payments. */
  provider: string;
  kind: 'orchestrator' | 'owned';
  /** Fee in USDC minor units (scale 6): fixed part plus basis points of the send amount. */
  feeFixed: bigint;
  feeBps: number;
  /** Owned routes only: basis points taken inside the rate (shown as `margin`). */
  marginBps?: number;
  /** Networks the rail can be funded on; a home wallet elsewhere needs a crossing (networkFee). */
  networks: readonly string[];
  estimatedSeconds: number;
  /** How long the provider's own quote lasts: a quote never outlives it. */
  quoteValiditySeconds: number;
  instant: boolean;
}

export interface CorridorDefinition extends Corridor {
  routes: readonly CorridorRoute[];
}

export interface BeneficiaryProblems {
  /** Fields the rail needs and the request lacks (400 beneficiary_incomplete, `missing`). */
  missing: string[];
  /** Fields present but malformed for the rail (400 validation), paths from the body root. */
  invalid: { path: (string | number)[]; message: string }[];
}

// ---------------------------------------------------------------------------------------------
// Routes. Orchestrators are third parties paying out on many rails (fee only, mid rate); owned
// routes are our own local rails (lower fee, a margin inside the rate). Fees are USDC minor units.
// Quote lives: an orchestrator's own quote lasts what it says; owned routes price off our FX
// source, whose quote lasts 90 s (functions/simulators/fx.ts).

function orchestrator(provider: string, fields: Omit<CorridorRoute, 'provider' | 'kind' | 'marginBps'>): CorridorRoute {
  return { provider, kind: 'orchestrator', ...fields };
}

function owned(provider: string, fields: Omit<CorridorRoute, 'provider' | 'kind' | 'quoteValiditySeconds'>): CorridorRoute {
  return { provider, kind: 'owned', quoteValiditySeconds: 90, ...fields };
}

function corridor(to: string, destinationCountry: string, routes: readonly CorridorRoute[]): CorridorDefinition {
  return {
    from: 'USDC',
    to,
    destinationCountry,
    ownedRail: routes.some((route) => route.kind === 'owned'),
    instant: routes.some((route) => route.instant),
    routes,
  };
}

export const corridorCatalogue: readonly CorridorDefinition[] = [
  // SPEI: instant, 24/7.
  corridor('MXN', 'MX', [
    orchestrator('orchestrator-a', { feeFixed: 1_000_000n, feeBps: 50, networks: ['base', 'ethereum', 'polygon'], estimatedSeconds: 300, quoteValiditySeconds: 120, instant: true }),
    owned('owned-mx-spei', { feeFixed: 250_000n, feeBps: 10, marginBps: 35, networks: ['base'], estimatedSeconds: 30, instant: true }),
  ]),
  // PIX: instant, 24/7 (the orchestrator falls back to TED for branch/account beneficiaries).
  corridor('BRL', 'BR', [
    orchestrator('orchestrator-a', { feeFixed: 1_000_000n, feeBps: 60, networks: ['base', 'ethereum'], estimatedSeconds: 600, quoteValiditySeconds: 120, instant: false }),
    owned('owned-br-pix', { feeFixed: 200_000n, feeBps: 15, marginBps: 50, networks: ['base'], estimatedSeconds: 20, instant: true }),
  ]),
  // ACH Colombia: same-day batches. Only fundable on solana, so a base home wallet pays a crossing.
  corridor('COP', 'CO', [
    orchestrator('orchestrator-c', { feeFixed: 1_500_000n, feeBps: 80, networks: ['solana'], estimatedSeconds: 14_400, quoteValiditySeconds: 60, instant: false }),
  ]),
  // NIP (NIBSS Instant Payment): instant.
  corridor('NGN', 'NG', [
    orchestrator('orchestrator-b', { feeFixed: 1_500_000n, feeBps: 80, networks: ['base', 'ethereum'], estimatedSeconds: 600, quoteValiditySeconds: 90, instant: false }),
    owned('owned-ng-nip', { feeFixed: 500_000n, feeBps: 20, marginBps: 80, networks: ['base'], estimatedSeconds: 60, instant: true }),
  ]),
  // PESONet (batch, same day) through the orchestrator; InstaPay (instant) on our own rail.
  corridor('PHP', 'PH', [
    orchestrator('orchestrator-b', { feeFixed: 1_000_000n, feeBps: 60, networks: ['base', 'polygon'], estimatedSeconds: 14_400, quoteValiditySeconds: 90, instant: false }),
    owned('owned-ph-instapay', { feeFixed: 300_000n, feeBps: 15, marginBps: 60, networks: ['base'], estimatedSeconds: 60, instant: true }),
  ]),
  // IMPS: instant (NEFT for amounts IMPS refuses; the orchestrator chooses).
  corridor('INR', 'IN', [
    orchestrator('orchestrator-b', { feeFixed: 1_000_000n, feeBps: 40, networks: ['base', 'polygon'], estimatedSeconds: 120, quoteValiditySeconds: 90, instant: true }),
  ]),
  // SEPA Instant Credit Transfer.
  corridor('EUR', 'DE', [
    orchestrator('orchestrator-a', { feeFixed: 500_000n, feeBps: 20, networks: ['base', 'ethereum'], estimatedSeconds: 20, quoteValiditySeconds: 120, instant: true }),
  ]),
  corridor('EUR', 'ES', [
    orchestrator('orchestrator-a', { feeFixed: 500_000n, feeBps: 20, networks: ['base', 'ethereum'], estimatedSeconds: 20, quoteValiditySeconds: 120, instant: true }),
  ]),
  // Faster Payments.
  corridor('GBP', 'GB', [
    orchestrator('orchestrator-a', { feeFixed: 500_000n, feeBps: 25, networks: ['base', 'ethereum'], estimatedSeconds: 30, quoteValiditySeconds: 120, instant: true }),
  ]),
  // Paid out by a local partner within the hour; only fundable on tron (a crossing from base).
  corridor('VND', 'VN', [
    orchestrator('orchestrator-c', { feeFixed: 1_500_000n, feeBps: 70, networks: ['tron'], estimatedSeconds: 3_600, quoteValiditySeconds: 60, instant: false }),
  ]),
];

export const corridors: readonly Corridor[] = corridorCatalogue.map(({ from, to, destinationCountry, ownedRail, instant }) => ({
  from,
  to,
  destinationCountry,
  ownedRail,
  instant,
}));

export function findCorridor(from: string, to: string, destinationCountry: string): CorridorDefinition | undefined {
  return corridorCatalogue.find((c) => c.from === from && c.to === to && c.destinationCountry === destinationCountry);
}

// ---------------------------------------------------------------------------------------------
// Beneficiary rules per destination country. Field checks are structural (format and check
// digits), what a rail or an orchestrator refuses up front; whether the account exists is only
// learned from the payout itself. Messages name the rule, never the value: the account is
// personal data and error bodies are logged.

type Field = keyof Beneficiary;
type Invalid = BeneficiaryProblems['invalid'][number];

interface RailRule {
  rail: string;
  /** Beyond `name` and `account`, which every rail needs. */
  required: readonly Field[];
  /** A required field another field may stand in for (a BIC names the bank as well as a bank code). */
  standIns?: Partial<Record<Field, Field>>;
  /** Checks of the fields that are present. */
  check(beneficiary: Beneficiary, country: string): Invalid[];
  sample: Beneficiary;
}

const at = (...path: string[]) => ['beneficiary', ...path];

function digitsOnly(text: string, min: number, max = min): boolean {
  return new RegExp(`^\\d{${min},${max}}$`).test(text);
}

/** CLABE: 3 bank + 3 plaza + 11 account + 1 check digit; weights 3,7,1 each taken mod 10. */
export function clabeValid(clabe: string): boolean {
  if (!digitsOnly(clabe, 18)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 17; i += 1) sum += (Number(clabe[i]) * (weights[i % 3] ?? 0)) % 10;
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
}

/** ISO 13616 IBAN of one country: its length, and the mod-97 check over the rearranged digits. */
export function ibanValid(iban: string, country: string): boolean {
  const compact = iban.replace(/ /g, '').toUpperCase();
  const length = ibanLengths[country];
  if (length === undefined || compact.length !== length || !compact.startsWith(country)) return false;
  return ibanChecksumValid(compact);
}

const ibanLengths: Readonly<Record<string, number>> = { DE: 22, ES: 24 };

/**
 * NUBAN (CBN, 2020 revision): 9-digit serial + check digit over institution code + serial with
 * weights 3,7,3 repeating. A 3-digit bank code is the 6-digit form with leading zeros, which
 * gives the same digit as the original 3-digit rule.
 */
export function nubanValid(account: string, bankCode: string): boolean {
  if (!digitsOnly(account, 10) || !/^(\d{3}|\d{6})$/.test(bankCode)) return false;
  const digits = bankCode.padStart(6, '0') + account.slice(0, 9);
  const weights = [3, 7, 3];
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) sum += Number(digits[i]) * (weights[i % 3] ?? 0);
  return (10 - (sum % 10)) % 10 === Number(account[9]);
}

/** ISO 9362: 4 bank + 2 country + 2 location [+ 3 branch]. The bank must be in the destination country. */
function bicProblem(beneficiary: Beneficiary, country: string): Invalid[] {
  if (beneficiary.bic === undefined) return [];
  const match = /^[A-Z]{4}([A-Z]{2})[A-Z0-9]{2}([A-Z0-9]{3})?$/.exec(beneficiary.bic);
  return match && match[1] === country ? [] : [{ path: at('bic'), message: `must be a BIC (8 or 11 characters) of a bank in ${country}` }];
}

function phoneProblem(beneficiary: Beneficiary, callingCode: string, country: string): Invalid[] {
  if (!beneficiary.phone) return [];
  return beneficiary.phone.callingCode.replace(/^\+/, '') === callingCode
    ? []
    : [{ path: at('phone', 'callingCode'), message: `must be +${callingCode}: the rail pays ${country} mobile numbers only` }];
}

function accountProblem(ok: boolean, message: string): Invalid[] {
  return ok ? [] : [{ path: at('account'), message }];
}

function bankCodeProblem(beneficiary: Beneficiary, pattern: RegExp, message: string): Invalid[] {
  return beneficiary.bankCode === undefined || pattern.test(beneficiary.bankCode) ? [] : [{ path: at('bankCode'), message }];
}

/**
 * A PIX key: e-mail, +55 mobile, CPF (11 digits), CNPJ (14 digits) or a random key (UUID). The two
 * patterns are made on each call: a literal kept from import is out of the mutation runner's reach
 * (decision 154).
 */
const pixKey = () => /^(?:[^\s@]+@[^\s@]+\.[^\s@]+|\+55\d{10,11}|\d{11}|\d{14}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/** Branch (agência, 4 digits), account number and its check digit, as TED needs them. */
const branchAccount = () => /^\d{4}-?\d{3,12}-?[\dX]$/i;

const sepa = (country: string, sample: Beneficiary): RailRule => ({
  rail: 'SEPA Instant',
  required: [],
  check: (b) => [
    ...accountProblem(ibanValid(b.account, country), `must be an IBAN of ${country} (${ibanLengths[country]} characters) with valid check digits`),
    ...bicProblem(b, country),
  ],
  sample,
});

const rules: Readonly<Record<string, RailRule>> = {
  // The CLABE names bank and branch itself: SPEI needs nothing else.
  MX: {
    rail: 'SPEI',
    required: [],
    check: (b) => accountProblem(clabeValid(b.account), 'must be an 18-digit CLABE with a valid check digit'),
    sample: { name: 'Ana María López', account: '032180000118359719' },
  },
  // The bank is always named: a PIX key is resolved against it, and the TED fallback needs it.
  BR: {
    rail: 'PIX (TED fallback)',
    required: ['bankCode'],
    check: (b) => [
      ...accountProblem(pixKey().test(b.account) || branchAccount().test(b.account), 'must be a PIX key (e-mail, +55 mobile, CPF, CNPJ or random key) or branch-account-digit'),
      ...bankCodeProblem(b, /^\d{3}$/, 'must be the 3-digit COMPE code of the bank'),
    ],
    sample: { name: 'João Pereira', account: '1234-0056789-3', bankCode: '341' },
  },
  // ACH Colombia: the bank's ACH code, and the beneficiary's address (the orchestrator's
  // SARLAFT screening needs it).
  CO: {
    rail: 'ACH Colombia',
    required: ['bankCode', 'addressLine'],
    check: (b) => [
      ...accountProblem(digitsOnly(b.account, 6, 17), 'must be a Colombian account number of 6 to 17 digits'),
      ...bankCodeProblem(b, /^\d{4}$/, 'must be the 4-digit ACH Colombia code of the bank'),
    ],
    sample: { name: 'Carlos Rodríguez', account: '12345678901', bankCode: '1007', addressLine: 'Calle 93 # 11-26, Bogotá' },
  },
  // NIP: NUBAN + bank code; the check digit binds the account to the bank.
  NG: {
    rail: 'NIP',
    required: ['bankCode'],
    check: (b) => {
      const bankCode = bankCodeProblem(b, /^(\d{3}|\d{6})$/, 'must be the 3- or 6-digit CBN code of the bank');
      const accountOk = digitsOnly(b.account, 10) && (b.bankCode === undefined || bankCode.length > 0 || nubanValid(b.account, b.bankCode));
      return [...accountProblem(accountOk, 'must be a 10-digit NUBAN whose check digit matches the bank code'), ...bankCode];
    },
    sample: { name: 'Chinedu Okafor', account: '0123456785', bankCode: '058' },
  },
  // InstaPay/PESONet: the bank (code or BIC) and the beneficiary's address.
  PH: {
    rail: 'InstaPay / PESONet',
    required: ['bankCode', 'addressLine', 'city'],
    standIns: { bankCode: 'bic' },
    check: (b, country) => [
      ...accountProblem(digitsOnly(b.account, 8, 16), 'must be an account number of 8 to 16 digits'),
      ...bicProblem(b, country),
    ],
    sample: { name: 'Maria Santos', account: '001234567890', bankCode: '010530667', addressLine: '6780 Ayala Avenue', city: 'Makati' },
  },
  // IMPS/NEFT: IFSC + account number.
  IN: {
    rail: 'IMPS / NEFT',
    required: ['bankCode'],
    check: (b) => [
      ...accountProblem(digitsOnly(b.account, 9, 18), 'must be an account number of 9 to 18 digits'),
      ...bankCodeProblem(b, /^[A-Z]{4}0[A-Z0-9]{6}$/, 'must be an 11-character IFSC: 4 letters, a zero, then 6 letters or digits'),
    ],
    sample: { name: 'Priya Sharma', account: '50100012345678', bankCode: 'HDFC0000123' },
  },
  // SEPA: the IBAN names bank and country; the BIC is optional since 2016.
  DE: sepa('DE', { name: 'Lukas Schmidt', account: 'DE89370400440532013000' }),
  ES: sepa('ES', { name: 'Lucía Fernández', account: 'ES9121000418450200051332' }),
  // Faster Payments: sort code + 8-digit account.
  GB: {
    rail: 'Faster Payments',
    required: ['bankCode'],
    check: (b) => [
      ...accountProblem(digitsOnly(b.account, 8), 'must be an 8-digit UK account number'),
      ...bankCodeProblem(b, /^\d{2}-?\d{2}-?\d{2}$/, 'must be a 6-digit sort code (123456 or 12-34-56)'),
    ],
    sample: { name: 'Oliver Smith', account: '31926819', bankCode: '60-16-13' },
  },
  // Local partner on NAPAS: bank (NAPAS BIN or BIC), full address and a Vietnamese mobile.
  VN: {
    rail: 'NAPAS',
    required: ['bankCode', 'addressLine', 'city', 'phone'],
    standIns: { bankCode: 'bic' },
    check: (b, country) => [
      ...accountProblem(digitsOnly(b.account, 6, 19), 'must be an account number of 6 to 19 digits'),
      ...bankCodeProblem(b, /^970\d{3}$/, 'must be the 6-digit NAPAS code of the bank (970xxx)'),
      ...bicProblem(b, country),
      ...phoneProblem(b, '84', country),
    ],
    sample: {
      name: 'Nguyen Van An',
      account: '0071000123456',
      bankCode: '970436',
      addressLine: '72 Le Thanh Ton, Ben Nghe Ward',
      city: 'Ho Chi Minh City',
      phone: { callingCode: '+84', number: '912345678' },
    },
  },
};

function present(value: unknown): boolean {
  return typeof value === 'string' ? value.trim().length > 0 : value !== undefined && value !== null;
}

/** The fields the corridor's rail needs, `name` and `account` first. Where `bic` may stand in for `bankCode`, `bankCode` is listed. */
export function corridorRequirements(corridor: Corridor): string[] {
  return ['name', 'account', ...(rules[corridor.destinationCountry]?.required ?? [])];
}

/** A beneficiary the corridor's rail accepts (made up, check digits valid): for tests, the README and sandbox prefill. */
export function sampleBeneficiary(corridor: Corridor): Beneficiary {
  const rule = rules[corridor.destinationCountry];
  if (!rule) throw new Error(`no beneficiary rules for ${corridor.destinationCountry}`);
  return structuredClone(rule.sample);
}

/** The rail the corridor pays out on, for people (docs, sandbox notes). */
export function railOf(corridor: Corridor): string | undefined {
  return rules[corridor.destinationCountry]?.rail;
}

/** What the corridor's rail would refuse about this beneficiary. */
export function beneficiaryProblems(corridor: CorridorDefinition, beneficiary: Beneficiary | undefined): BeneficiaryProblems {
  if (!beneficiary) return { missing: ['beneficiary'], invalid: [] };
  const rule = rules[corridor.destinationCountry];
  const missing: string[] = [];
  for (const field of corridorRequirements(corridor) as Field[]) {
    const standIn = rule?.standIns?.[field];
    if (!present(beneficiary[field]) && !(standIn && present(beneficiary[standIn]))) missing.push(field);
  }
  // An absent account is already `missing`; the other fields are still checked.
  const hasAccount = present(beneficiary.account);
  const invalid = (rule?.check({ ...beneficiary, account: hasAccount ? beneficiary.account : '' }, corridor.destinationCountry) ?? []).filter(
    (problem) => hasAccount || problem.path[1] !== 'account',
  );
  return { missing, invalid };
}
