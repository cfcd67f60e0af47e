/**
 * A secret of the stage, read from Secrets Manager by its ARN (docs/decisions/167): the edge's origin
 * value and the cursors' HMAC key. It answers the current version first and, once the secret has
 * been rotated, the previous one after it, so a rotation refuses nothing: callers send or sign with
 * the first and accept any. A container keeps what it read for five minutes, shared by every request
 * meanwhile, so within five minutes of a rotation every container uses the new value. A failed read
 * is kept by nobody and made again at the next request.
 */
const refreshMs = 5 * 60 * 1000;

const held = new Map<string, { values: Buffer[]; at: number }>();
const reading = new Map<string, Promise<Buffer[]>>();

/** `what` names the secret in the error a deployed function throws when its current value is empty. */
export function stageSecret(secretId: string, what: string): Promise<Buffer[]> {
  const kept = held.get(secretId);
  if (kept && Date.now() - kept.at < refreshMs) return Promise.resolve(kept.values);
  let read = reading.get(secretId);
  if (!read) {
    read = readVersions(secretId, what)
      .then((values) => {
        held.set(secretId, { values, at: Date.now() });
        return values;
      })
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
