import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { startFakeAwsJsonService } from './fakeAwsJson.ts';

/**
 * A stand-in for AWS KMS, which cannot run here: GenerateDataKey and Decrypt over its JSON protocol,
 * reached by the real SDK client through AWS_ENDPOINT_URL_KMS. As KMS does, it hands out a fresh
 * data key with that key encrypted under the key named, the encryption context bound in (here as
 * AES-GCM's additional data under a key of its own), and Decrypt answers InvalidCiphertextException
 * for a blob it did not make or a context other than the one it was made with. Only `keyArn` exists.
 */
export interface FakeKms {
  url: string;
  keyArn: string;
  requests: { operation: string; encryptionContext?: Record<string, string> }[];
  stop(): Promise<void>;
}

export async function startFakeKms(keyArn: string): Promise<FakeKms> {
  const masterKey = randomBytes(32);
  const requests: FakeKms['requests'] = [];
  const context = (input: Record<string, unknown>) => JSON.stringify(Object.entries((input.EncryptionContext ?? {}) as Record<string, string>).sort());
  const service = await startFakeAwsJsonService((operation, input) => {
    requests.push({ operation, ...(input.EncryptionContext ? { encryptionContext: input.EncryptionContext as Record<string, string> } : {}) });
    if (operation === 'GenerateDataKey') {
      if (input.KeyId !== keyArn) return { body: { message: `Key '${String(input.KeyId)}' does not exist` }, error: 'NotFoundException' };
      const plaintext = randomBytes(input.KeySpec === 'AES_256' ? 32 : 16);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv).setAAD(Buffer.from(context(input)));
      const sealed = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return { body: { KeyId: keyArn, Plaintext: plaintext.toString('base64'), CiphertextBlob: sealed.toString('base64') } };
    }
    if (operation === 'Decrypt') {
      const blob = Buffer.from(String(input.CiphertextBlob ?? ''), 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', masterKey, blob.subarray(0, 12)).setAAD(Buffer.from(context(input)));
        decipher.setAuthTag(blob.subarray(blob.length - 16));
        const plaintext = Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]);
        return { body: { KeyId: keyArn, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' } };
      } catch {
        return { body: { message: '' }, error: 'InvalidCiphertextException' };
      }
    }
    return { body: { message: `only GenerateDataKey and Decrypt are played here, not ${operation}` }, error: 'UnsupportedOperationException' };
  });
  return { url: service.url, keyArn, requests, stop: service.stop };
}
