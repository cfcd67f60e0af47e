import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';

/**
 * A random 32-byte key made once and kept in the table (`SETTING/<name>`): the local stand-in for a
 * key AWS keeps elsewhere (the cursor HMAC key, the webhook secrets key). The first writer wins;
 * everyone reads what was written.
 */
export async function generatedKey(name: string): Promise<Buffer> {
  const setting = keys.setting(name);
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...setting, entity: 'setting', value: randomBytes(32).toString('base64') },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: setting, ConsistentRead: true }));
  return Buffer.from(String(stored.Item?.value), 'base64');
}
