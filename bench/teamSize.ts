/**
 * What one authenticated request writes, for an organization of 1 member and of 2,000 (for
 * `npm run bench`, bench/run.ts calls teamSizeFigures): GET /me with a member's key, the DynamoDB
 * calls it makes on the organization's partition, the units DynamoDB Local reports for them, and
 * the size of the item it rewrites (the organization item, its rate bucket) and of the key item it
 * reads, by DynamoDB's own item-size rules. Decision 077: neither grows with the team.
 * The team is built through the store's own invitation and accept, as POST /invitations/accept does.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { documentItemBytes } from './awsWriteUnits.ts';
import type { LocalService } from '../lib/local/service.ts';
import { onboardOrganization } from '../lib/ops/onboarding.ts';
import { parseApiKey } from '#domain/apiKeys.ts';
import { config } from '#platform/config.ts';
import { dynamo, observeConsumedCapacity, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { acceptInvitation, createInvitation } from '#store/members.ts';
import { setRateLimits } from '#store/organizations.ts';

export interface TeamSizeBenchOptions {
  service: LocalService;
  log: (message: string) => void;
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

async function measureOrganization(service: LocalService, members: number, log: (message: string) => void) {
  const created = await onboardOrganization({ name: `Bench Team of ${members}`, kybStatus: 'approved' });
  await service.runner.waitFor(created.walletExecution);
  const organizationId = created.organization.id;
  await setRateLimits(organizationId, { burst: 100_000_000, perSecond: 1_000_000 });
  log(`team size: ${members} member(s) through invitation and accept`);
  let memberKey = '';
  const join = async (member: number) => {
    const invitation = await createInvitation({ organizationId, email: `bench.${member}@example.com`, name: null, role: 'admin', ttlSeconds: 3_600 });
    if (invitation === 'email_taken') throw new Error('bench address taken');
    const accepted = await acceptInvitation(invitation.token, config().SERVICE_ENVIRONMENT);
    if ('refused' in accepted) throw new Error(`bench invitation not accepted: ${accepted.refused}`);
    memberKey = accepted.apiKey;
  };
  await pMap(Array.from({ length: members }, (_, index) => index + 1), join, { concurrency: 12 });

  const headers = { authorization: `Bearer ${memberKey}` };
  const me = async () => {
    const response = await fetch(`${service.url}/me`, { headers });
    if (response.status !== 200) throw new Error(`GET /me answered ${response.status}`);
    await response.arrayBuffer();
  };
  await me(); // this process sees the key authenticate: from here on, key read and charge go out together

  const requests = 50;
  const tally = { calls: 0, readUnits: 0, writeUnits: 0, byItem: {} as Record<string, number> };
  const partition = keys.organization(organizationId).pk;
  const previousFlag = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '1';
  const stop = observeConsumedCapacity((record) => {
    const key = record.input.Key as { pk?: string; sk?: string } | undefined;
    if (key?.pk !== partition) return;
    tally.calls += 1;
    tally.readUnits += record.readUnits;
    tally.writeUnits += record.writeUnits;
    // APIKEY (the key's read), ORG (the bucket's charge), MEMBER (GET /me's own read of the member).
    const item = `${record.command} ${key.sk?.split('#')[0]}`;
    tally.byItem[item] = (tally.byItem[item] ?? 0) + 1;
  });
  try {
    for (let i = 0; i < requests; i += 1) await me();
  } finally {
    stop();
    if (previousFlag === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previousFlag;
  }

  const key = parseApiKey(memberKey, config().SERVICE_ENVIRONMENT)!;
  const read = async (itemKey: { pk: string; sk: string }) =>
    (await dynamo().send(new GetCommand({ TableName: tableName(), Key: itemKey, ConsistentRead: true }))).Item;
  const organizationBytes = documentItemBytes(await read(keys.organization(organizationId)));
  return {
    members,
    requests,
    dynamoCallsPerRequest: round(tally.calls / requests),
    callsPerRequest: Object.fromEntries(Object.entries(tally.byItem).map(([item, count]) => [item, round(count / requests)])),
    writeUnitsPerRequest: round(tally.writeUnits / requests),
    readUnitsPerRequest: round(tally.readUnits / requests),
    /** An UpdateItem is billed on the larger of the item before and after: this item, about this size. */
    bytesWrittenPerRequest: organizationBytes,
    organizationItemBytes: organizationBytes,
    keyItemBytesRead: documentItemBytes(await read(keys.apiKey(organizationId, key.keyId))),
  };
}

export async function teamSizeFigures({ service, log }: TeamSizeBenchOptions) {
  const one = await measureOrganization(service, 1, log);
  const large = await measureOrganization(service, 2_000, log);
  return {
    note: "GET /me with a member key, after its first request (decision 076: the key item's GetItem and the organization item's UpdateItem together; GET /me then reads the member item, its own read); calls and units on the organization's partition as DynamoDB Local reports them (COUNT_CAPACITY); bytes by DynamoDB's item-size rules. The UpdateItem is the one write: 1 unit (items up to 1 KB) whatever the team's size",
    members1: one,
    members2000: large,
    writeGrowth: { bytes: large.bytesWrittenPerRequest - one.bytesWrittenPerRequest, writeUnits: round(large.writeUnitsPerRequest - one.writeUnitsPerRequest) },
  };
}
