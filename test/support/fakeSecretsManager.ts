import { createServer, type Server } from 'node:http';

/**
 * A stand-in for AWS Secrets Manager, which cannot run here: GetSecretValue over its JSON protocol on
 * 127.0.0.1, reached by the real SDK client through AWS_ENDPOINT_URL_SECRETS_MANAGER. It answers as
 * Secrets Manager does: a secret's AWSCURRENT and AWSPREVIOUS versions, ResourceNotFoundException for
 * a stage the secret does not have (a secret never rotated has no AWSPREVIOUS), and, while `failing`,
 * 500 InternalServiceError. Every request it is sent is kept in `requests`.
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
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: Record<string, unknown>, errorType?: string) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
        response.end(JSON.stringify(errorType ? { __type: errorType, ...body } : body));
      };
      if (request.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') return answer(400, { message: 'only GetSecretValue is played here' }, 'InvalidRequestException');
      const { SecretId: secretId, VersionStage: versionStage = 'AWSCURRENT' } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string; VersionStage?: string };
      requests.push({ secretId, versionStage });
      if (fake.failing) return answer(500, { message: 'An error occurred on the server side.' }, 'InternalServiceError');
      const secret = secrets.get(secretId);
      const value = versionStage === 'AWSCURRENT' ? secret?.current : versionStage === 'AWSPREVIOUS' ? secret?.previous : undefined;
      if (value === undefined) {
        return answer(400, { message: `Secrets Manager can't find the specified secret value for staging label: ${versionStage}` }, 'ResourceNotFoundException');
      }
      answer(200, { ARN: secretId, Name: secretId.split(':').at(-1), SecretString: value, VersionId: `v-${value.length}`, VersionStages: [versionStage] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    secrets,
    requests,
    rotate(secretId: string, value: string) {
      const secret = secrets.get(secretId);
      secrets.set(secretId, { current: value, ...(secret ? { previous: secret.current } : {}) });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
