import { startFakeAwsJsonService } from './fakeAwsJson.ts';

/**
 * A stand-in for AWS Secrets Manager, which cannot run here: GetSecretValue over its JSON protocol,
 * reached by the real SDK client through AWS_ENDPOINT_URL_SECRETS_MANAGER. It answers as Secrets
 * Manager does: a secret's AWSCURRENT and AWSPREVIOUS versions, ResourceNotFoundException for a stage
 * the secret does not have (a secret never rotated has no AWSPREVIOUS), and, while `failing`, 500
 * InternalServiceError. Every request it is sent is kept in `requests`.
 */
export interface FakeSecretsManager {
  url: string;
  /** Secret id (its ARN) → its versions. Rotating moves AWSCURRENT to AWSPREVIOUS. */
  secrets: Map<string, { current: string; previous?: string }>;
  requests: { secretId: string; versionStage: string }[];
  failing: boolean;
  rotate(secretId: string, value: string): void;
  stop(): Promise<void>;
}

export async function startFakeSecretsManager(): Promise<FakeSecretsManager> {
  const secrets: FakeSecretsManager['secrets'] = new Map();
  const requests: FakeSecretsManager['requests'] = [];
  const fake = { failing: false };
  const service = await startFakeAwsJsonService((operation, input) => {
    if (operation !== 'GetSecretValue') return { body: { message: 'only GetSecretValue is played here' }, error: 'InvalidRequestException' };
    const secretId = String(input.SecretId);
    const versionStage = String(input.VersionStage ?? 'AWSCURRENT');
    requests.push({ secretId, versionStage });
    if (fake.failing) return { status: 500, body: { message: 'An error occurred on the server side.' }, error: 'InternalServiceError' };
    const secret = secrets.get(secretId);
    const value = versionStage === 'AWSCURRENT' ? secret?.current : versionStage === 'AWSPREVIOUS' ? secret?.previous : undefined;
    if (value === undefined) return { body: { message: `Secrets Manager can't find the specified secret value for staging label: ${versionStage}` }, error: 'ResourceNotFoundException' };
    return { body: { ARN: secretId, Name: secretId.split(':').at(-1), SecretString: value, VersionId: `v-${value.length}`, VersionStages: [versionStage] } };
  });
  return Object.assign(fake, {
    url: service.url,
    secrets,
    requests,
    rotate(secretId: string, value: string) {
      const secret = secrets.get(secretId);
      secrets.set(secretId, { current: value, ...(secret ? { previous: secret.current } : {}) });
    },
    stop: service.stop,
  });
}
