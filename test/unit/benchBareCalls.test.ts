import { describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { commandsSentBy, replayed, replayer } from '../../bench/bareCalls.ts';

class RecordingClient {
  readonly received: { name: string; input: Record<string, unknown> }[] = [];
  async send(command: { constructor: { name: string }; input: Record<string, unknown> }): Promise<unknown> {
    this.received.push({ name: command.constructor.name, input: command.input });
    return {};
  }
}

const charge = {
  TableName: 'payments',
  Key: { pk: 'ORG#org_1', sk: 'ORG' },
  UpdateExpression: 'SET #tat = :newTat',
  ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#tat) OR #tat <= :now)',
  ExpressionAttributeNames: { '#tat': 'tatRead' },
  ExpressionAttributeValues: { ':now': 1000, ':newTat': 1000.001, ':approved': 'approved' },
  ReturnValues: 'ALL_NEW' as const,
};
const read = { TableName: 'payments', Key: { pk: 'ORG#org_1', sk: 'APIKEY#k' }, ConsistentRead: true };

describe('the bare calls of the GET /me figure (bench/bareCalls.ts)', () => {
  it('records the commands sent while the work ran, as they were sent, and puts send back', async () => {
    const client = new RecordingClient();
    const sent = await commandsSentBy(client as never, async () => {
      await Promise.all([client.send(new GetCommand(read) as never), client.send(new UpdateCommand(charge) as never)]);
    });
    expect(sent.map((command) => command.constructor.name)).toEqual(['GetCommand', 'UpdateCommand']);
    expect(sent[1]!.input).toEqual(charge);
    expect(Object.hasOwn(client, 'send')).toBe(false);
    await client.send(new GetCommand(read) as never);
    expect(client.received).toHaveLength(3);
  });

  it('sends a read again as it was, and an update on a bench attribute with its numbers one further at each call', async () => {
    const client = new RecordingClient();
    const again = replayer(client as never, [new GetCommand(read), new UpdateCommand(charge)] as never, 'benchTat');
    await again();
    await again();
    expect(client.received.map((command) => command.input)).toEqual([
      read,
      replayed(charge, 'benchTat', 1),
      read,
      replayed(charge, 'benchTat', 2),
    ]);
    expect(replayed(charge, 'benchTat', 2)).toEqual({
      ...charge,
      ExpressionAttributeNames: { '#tat': 'benchTat' },
      ExpressionAttributeValues: { ':now': 1002, ':newTat': 1002.001, ':approved': 'approved' },
    });
  });
});
