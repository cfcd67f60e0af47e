import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryPrefix, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { BeneficiaryView } from '#schemas/offramps.ts';

/**
 * Off-ramp beneficiaries: `ORG#<org> / OFFRAMP_BENEFICIARY#<uuid>`, the view itself. Written once
 * (no edit, no delete: the contract), so an off-ramp can rely on the payee it was sent to.
 * Bounded per organization and answered whole.
 */
export const offRampBeneficiaryEntity = 'offRampBeneficiary';

export interface OffRampBeneficiaryRecord extends BeneficiaryView {
  organizationId: string;
}

export async function putOffRampBeneficiary(record: OffRampBeneficiaryRecord): Promise<void> {
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.offRampBeneficiary(record.organizationId, record.id), entity: offRampBeneficiaryEntity, ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
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
