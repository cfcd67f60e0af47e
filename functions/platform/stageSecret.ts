import { logger } from './logger.ts';

/**
 * A secret of the stage, read from Secrets Manager by its ARN (docs/decisions/167): the edge's origin
 * value and the cursors' HMAC key. It answers the current version first and, once the secret has
 * been rotated, the previous one after it, so a rotation refuses nothing: callers send or sign with
 * the first and accept any. A container keeps what it read for five minutes, shared by every request
 * meanwhile, so within five minutes of a rotation every container uses the new value.
 *
 * A first read that fails is kept by nobody: the request is answered 503 and the next one reads
 * again. A later read that fails keeps what was read before: every request on sandbox and production
 * passes the origin check, and a Secrets Manager that does not answer must not take the API down with
 * it. Such a container tries again at most every thirty seconds, so the requests of an outage do not
 * each wait for the SDK's retries; each failed try is logged.
 */
const refreshMs = 5 * 60 * 1000;
const retryMs = 30 * 1000;

const held = new Map<string, { values: Buffer[]; at: number; triedAt?: number }>();
const reading = new Map<string, Promise<Buffer[]>>();

/** `what` names the secret in the error a deployed function throws when its current value is empty. */
export function stageSecret(secretId: string, what: string): Promise<Buffer[]> {
  const kept = held.get(secretId);
  const now = Date.now();
  if (kept && (now - kept.at < refreshMs || (kept.triedAt !== undefined && now - kept.triedAt < retryMs))) return Promise.resolve(kept.values);
  let read = reading.get(secretId);
  if (!read) {
    read = readVersions(secretId, what)
      .then(
        (values) => {
          held.set(secretId, { values, at: Date.now() });
          return values;
        },
        (error: unknown) => {
          const before = held.get(secretId);
          if (!before) throw error;
          logger.warn('stage secret not read again: kept what was read before', { secret: what, readAt: new Date(before.at).toISOString(), error });
          before.triedAt = Date.now();
          return before.values;
        },
      )
      .finally(() => reading.delete(secretId));
    reading.set(secretId, read);
  }
  return read;
}

async function readVersions(secretId: string, what: string): Promise<Buffer[]> {
  const { SecretsManagerClient, GetSecretValueCommand, ResourceNotFoundException } = await import('./secretsManager.ts');
  client ??= new SecretsManagerClient({});
  const version = async (VersionStage: 'AWSCURRENT' | 'AWSPREVIOUS') => {
    try {
      return (await client!.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage }))).SecretString;
    } catch (error) {
      // A secret never rotated has no previous version.
      if (error instanceof ResourceNotFoundException && VersionStage === 'AWSPREVIOUS') return undefined;
      throw error;
    }
  };
  const [current, previous] = await Promise.all([version('AWSCURRENT'), version('AWSPREVIOUS')]);
  if (!current) throw new Error(`${what} is empty`);
  return [current, ...(previous ? [previous] : [])].map((value) => Buffer.from(value, 'utf8'));
}

let client: import('@aws-sdk/client-secrets-manager').SecretsManagerClient | undefined;
