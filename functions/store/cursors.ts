import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { ApiError } from '#platform/errors.ts';
import { config } from '#platform/config.ts';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';

/**
 * Opaque pagination cursors (docs/data-model.md, "Cursors"). A cursor names the last row of a
 * page (its DynamoDB key), the list it belongs to and the organization, and carries an HMAC so
 * that a forged or altered cursor, or one from another list or organization, is 400
 * `invalid_cursor` rather than an empty or foreign page.
 */
const payloadSchema = z.object({
  v: z.literal(1),
  list: z.string(),
  org: z.string(),
  key: z.record(z.string(), z.string()),
});

export interface CursorScope {
  /** The list, e.g. `transactions` or `batch:<id>:items`. */
  list: string;
  organizationId: string;
}

let secretPromise: Promise<Buffer> | undefined;

/** The HMAC key: configured, from Secrets Manager in AWS, or made once and kept in the table locally. */
function cursorSecret(): Promise<Buffer> {
  secretPromise ??= loadSecret().catch((error) => {
    secretPromise = undefined;
    throw error;
  });
  return secretPromise;
}

async function loadSecret(): Promise<Buffer> {
  const { CURSOR_SECRET, CURSOR_SECRET_ARN } = config();
  if (CURSOR_SECRET) return Buffer.from(CURSOR_SECRET, 'utf8');
  if (CURSOR_SECRET_ARN) {
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({});
    const result = await client.send(new GetSecretValueCommand({ SecretId: CURSOR_SECRET_ARN }));
    if (!result.SecretString) throw new Error('cursor secret is empty');
    return Buffer.from(result.SecretString, 'utf8');
  }
  const setting = keys.setting('cursorSecret');
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...setting, entity: 'setting', value: randomBytes(32).toString('base64') },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
  const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: setting, ConsistentRead: true }));
  return Buffer.from(String(stored.Item?.value), 'base64');
}

function sign(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export async function encodeCursor(scope: CursorScope, lastKey: Record<string, unknown>): Promise<string> {
  const key = Object.fromEntries(Object.entries(lastKey).map(([name, value]) => [name, String(value)]));
  const payload = Buffer.from(JSON.stringify({ v: 1, list: scope.list, org: scope.organizationId, key })).toString('base64url');
  return `${payload}.${sign(await cursorSecret(), payload)}`;
}

/** The DynamoDB ExclusiveStartKey the cursor names; 400 `invalid_cursor` for anything else. */
export async function decodeCursor(scope: CursorScope, cursor: string): Promise<Record<string, string>> {
  const invalid = new ApiError('invalid_cursor', 'The cursor was not issued by this service for this list; start again without a cursor.');
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined || cursor.length > 1024) throw invalid;
  const expected = Buffer.from(sign(await cursorSecret(), payload));
  const presented = Buffer.from(signature);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) throw invalid;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  const parsed = payloadSchema.safeParse(decoded);
  if (!parsed.success || parsed.data.list !== scope.list || parsed.data.org !== scope.organizationId) throw invalid;
  return parsed.data.key;
}

/** Tests change tables between files; the secret lives in the table, so forget it. */
export function forgetCursorSecret(): void {
  secretPromise = undefined;
}
