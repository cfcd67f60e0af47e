import { randomUUID } from 'node:crypto';
import { putOffRampBeneficiary, type OffRampBeneficiaryRecord } from '#store/offRampBeneficiaries.ts';
import type { BeneficiaryView, CreateBeneficiaryBody } from '#schemas/offramps.ts';
import { holdForCompliance } from '#operations/compliance/holds.ts';
import { maskAccount } from '#domain/accountMask.ts';
import { screenBeneficiary } from '#domain/screening.ts';

/**
 * Off-ramp beneficiaries (payees of POST /treasury/offramp), apart from the payment beneficiaries
 * of corridors.ts. Registration checks only the shape (the route's schema): the contract says
 * nothing verifies the account, so a well-formed unknown account is registered, and a payout
 * currency we do not serve is refused when it is quoted or off-ramped to (decision 061). No
 * idempotency key: a retry registers twice, as the contract says.
 *
 * The payee is screened first: a listed name is refused with 403 `compliance_hold` and nothing is
 * registered, so no off-ramp can name it; the compliance record keeps the account masked under
 * the id the beneficiary would have had, which the answer carries (decision 078).
 */
export async function registerOffRampBeneficiary(organizationId: string, body: CreateBeneficiaryBody, now = new Date()): Promise<BeneficiaryView> {
  const id = randomUUID();
  const hit = screenBeneficiary(body.name);
  if (hit) {
    throw await holdForCompliance({
      organizationId,
      transactionId: id,
      operation: 'beneficiary',
      requestHash: null,
      party: hit.party,
      beneficiaryName: body.name,
      beneficiaryAccountMasked: maskAccount(body.accountId),
      corridor: null,
      details: { currency: body.currency.toUpperCase(), country: body.country.toUpperCase() },
      now,
    });
  }
  const record: OffRampBeneficiaryRecord = {
    organizationId,
    id,
    name: body.name,
    accountId: body.accountId,
    bic: body.bic,
    bankName: body.bankName,
    city: body.city,
    addressLine: body.addressLine,
    // Codes are compared with our catalogue: kept upper case, whatever case they were sent in.
    country: body.country.toUpperCase(),
    currency: body.currency.toUpperCase(),
    createdAt: now.toISOString(),
  };
  await putOffRampBeneficiary(record);
  return beneficiaryView(record);
}

export function beneficiaryView(record: OffRampBeneficiaryRecord): BeneficiaryView {
  const { organizationId: _organizationId, ...view } = record;
  return view;
}

/** Bodies for POST /treasury/beneficiaries, one per payout currency served (GET /treasury/sandbox-prefill). Made up. */
export const sampleOffRampBeneficiaries: readonly CreateBeneficiaryBody[] = [
  {
    name: 'Müller Feinmechanik GmbH',
    accountId: 'DE89370400440532013000',
    bic: 'COBADEFFXXX',
    bankName: 'Commerzbank',
    city: 'Köln',
    addressLine: 'Hohenzollernring 52',
    country: 'DE',
    currency: 'EUR',
  },
  {
    name: 'Harbour Lane Supplies Ltd',
    accountId: 'GB29NWBK60161331926819',
    bic: 'NWBKGB2L',
    bankName: 'NatWest',
    city: 'London',
    addressLine: '250 Bishopsgate',
    country: 'GB',
    currency: 'GBP',
  },
  {
    name: 'Red Mesa Trading LLC',
    accountId: '000123456789',
    bic: 'CHASUS33',
    bankName: 'JPMorgan Chase Bank',
    city: 'New York',
    addressLine: '383 Madison Avenue',
    country: 'US',
    currency: 'USD',
  },
];
