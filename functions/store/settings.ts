import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { outsideAnyInvocation } from '#platform/invocation.ts';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';

/** Per table and name: tests and the local launcher switch tables within one process. */
const kept = new Map<string, Promise<Buffer>>();

/**
 * A random 32-byte key made once and kept in the table (`SETTING/<name>`): the local stand-in for a
 * key AWS keeps elsewhere (the cursor HMAC key, the webhook secrets key). The first writer wins;
 * everyone reads what was written. The process keeps what it read, shared by every invocation that
 * asks meanwhile and read as none of theirs, so one abandoned does not fail the others; a failed
 * read is kept by nobody.
 */
export function generatedKey(name: string): Promise<Buffer> {
  const at = `${tableName()}\n${name}`;
  let key = kept.get(at);
  if (!key) {
    key = outsideAnyInvocation(() => readOrMake(name));
    key.catch(() => kept.delete(at));
    kept.set(at, key);
  }
  return key;
}

/** As a new process would: the keys read again from the table (tests of a restart). */
export function forgetGeneratedKeys(): void {
  kept.clear();
}

async function readOrMake(name: string): Promise<Buffer> {
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
