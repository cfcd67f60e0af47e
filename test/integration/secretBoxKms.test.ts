import { InvalidCiphertextException } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reloadConfig } from '#platform/config.ts';
import { open, seal } from '#store/secretBox.ts';
import { startFakeKms, type FakeKms } from '../support/fakeKms.ts';

/**
 * The secret box as deployed stages run it (docs/decisions/092, 110): webhook secrets and members'
 * unsubscribe keys sealed under a KMS data key, which only AWS runs. Elsewhere the tests seal with the
 * table's local key; here the function is given WEBHOOK_KMS_KEY_ID, as the stacks give it, and the
 * real SDK client calls a stand-in that speaks KMS's protocol and binds the encryption context as KMS
 * does (test/support/fakeKms.ts).
 */
const keyArn = 'arn:aws:kms:us-east-1:123456789012:key/0b7e9f5c-3f2a-4c1d-9e8b-7a6f5d4c3b2a';
let kms: FakeKms;

beforeAll(async () => {
  kms = await startFakeKms(keyArn);
  vi.stubEnv('WEBHOOK_KMS_KEY_ID', keyArn);
  vi.stubEnv('AWS_ENDPOINT_URL_KMS', kms.url);
  reloadConfig();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  reloadConfig();
  await kms.stop();
});

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('the secret box under KMS', () => {
  it('seals each secret under a fresh data key, kept only encrypted beside it, and opens it for its organization', async () => {
    kms.requests.length = 0;
    const first = await seal(secret, 'org_A');
    const second = await seal(secret, 'org_A');
    expect(first.by).toBe('kms');
    expect(first.dataKey).toBeTruthy();
    expect(second.dataKey).not.toBe(first.dataKey);
    expect(second.ciphertext).not.toBe(first.ciphertext);
    expect(JSON.stringify(first)).not.toContain(secret);
    expect(await open(first, 'org_A')).toBe(secret);
    expect(await open(second, 'org_A')).toBe(secret);
    expect(kms.requests).toEqual([
      { operation: 'GenerateDataKey', encryptionContext: { organizationId: 'org_A' } },
      { operation: 'GenerateDataKey', encryptionContext: { organizationId: 'org_A' } },
      { operation: 'Decrypt', encryptionContext: { organizationId: 'org_A' } },
      { operation: 'Decrypt', encryptionContext: { organizationId: 'org_A' } },
    ]);
  });

  it('does not open a sealed secret copied to another organization: KMS refuses its data key under that context', async () => {
    const sealed = await seal(secret, 'org_A');
    await expect(open(sealed, 'org_B')).rejects.toBeInstanceOf(InvalidCiphertextException);
  });

  it('does not open a sealed secret whose ciphertext was changed', async () => {
    const sealed = await seal(secret, 'org_A');
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    bytes[0] = bytes[0]! ^ 1;
    await expect(open({ ...sealed, ciphertext: bytes.toString('base64') }, 'org_A')).rejects.toThrow(/unable to authenticate|auth/i);
  });
});
