import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryPrefix, tableName } from './client.ts';
import { keys } from './keys.ts';
import { listFull, writeCounted } from './listCounts.ts';
import type { BeneficiaryView } from '#schemas/offramps.ts';

/**
 * Off-ramp beneficiaries: `ORG#<org> / OFFRAMP_BENEFICIARY#<uuid>`, the view itself. Written once
 * (no edit, no delete: the contract), so an off-ramp can rely on the payee it was sent to.
 * Bounded per organization (decision 108) and answered whole.
 */
export const offRampBeneficiaryEntity = 'offRampBeneficiary';

export interface OffRampBeneficiaryRecord extends BeneficiaryView {
  organizationId: string;
}

/** Written with the organization's count of beneficiaries: 409 `conflict` once it holds its cap (decision 108). */
export async function putOffRampBeneficiary(record: OffRampBeneficiaryRecord): Promise<void> {
  const written = await writeCounted(record.organizationId, 'beneficiaries', [
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.offRampBeneficiary(record.organizationId, record.id), entity: offRampBeneficiaryEntity, ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ], 1);
  if (written.outcome === 'full') throw listFull('beneficiaries', written.cap);
  if (written.outcome === 'refused') throw new Error(`beneficiary id ${record.id} was taken`);
}

/** Another organization's beneficiary is simply absent: the key is scoped by the caller's organization. */
export async function getOffRampBeneficiary(organizationId: string, beneficiaryId: string): Promise<OffRampBeneficiaryRecord | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.offRampBeneficiary(organizationId, beneficiaryId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

/** Oldest first (registration order), strongly consistent: a beneficiary just registered is listed. */
export async function listOffRampBeneficiaries(organizationId: string): Promise<OffRampBeneficiaryRecord[]> {
  const items = await queryPrefix(`ORG#${organizationId}`, 'OFFRAMP_BENEFICIARY#', { ConsistentRead: true });
  return items.map(fromItem).sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
}

function fromItem(item: Record<string, unknown>): OffRampBeneficiaryRecord {
  const { pk: _pk, sk: _sk, entity: _entity, ...record } = item;
  return record as unknown as OffRampBeneficiaryRecord;
}
