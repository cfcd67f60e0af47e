import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '#core/permissions.ts';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';

/** Team members (contract: "Team member"). Invitations and keys for members come with the team issue. */
export interface MemberItem {
  id: string;
  organizationId: string;
  email: string;
  name: string | null;
  role: Exclude<Role, 'owner'>;
  status: string;
  invitedAt: string;
  acceptedAt: string | null;
  createdAt: string;
}

export async function getMember(organizationId: string, memberId: string): Promise<MemberItem | undefined> {
  const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.member(organizationId, memberId) }));
  return result.Item as MemberItem | undefined;
}
