import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { config } from '#platform/config.ts';
import { standingInFor } from '#platform/awsStandIns.ts';
import { generatedKey } from './settings.ts';
import type { KMSClient } from './kms.ts';

/**
 * Envelope encryption of the service's signing secrets: webhook secrets (docs/decisions/092) and
 * members' unsubscribe keys (110); the names below say webhook for the first of them, kept so sealed
 * data and deployed keys stay valid. In AWS each secret is sealed with AES-256-GCM under a fresh KMS
 * data key (GenerateDataKey), and the data key is kept encrypted beside it: only a function granted
 * kms:Decrypt on the key (the webhook starter and delivery task, the notification mailer) can open
 * it. Locally one AES-256 key, made once and kept in the table, stands in for KMS. The organization's id is
 * bound into the seal (GCM's additional data, KMS's encryption context): a sealed secret copied to
 * another organization's item does not open.
 */
export interface Sealed {
  /** `kms`: `dataKey` is the KMS-encrypted data key. `local`: the table's local key. */
  by: 'kms' | 'local';
  dataKey?: string;
  iv: string;
  tag: string;
  ciphertext: string;
}

const localKey = () => generatedKey('webhookSecretKey');

// One client per container: building one resolves its configuration (region, credentials, endpoint)
// again, and a webhook delivery opens one or two secrets.
let kmsClient: KMSClient | undefined;

async function kms() {
  const { KMSClient, GenerateDataKeyCommand, DecryptCommand } = await import('./kms.ts');
  kmsClient ??= new KMSClient({});
  return { client: kmsClient, GenerateDataKeyCommand, DecryptCommand };
}

export async function seal(plaintext: string, organizationId: string): Promise<Sealed> {
  const keyId = config().WEBHOOK_KMS_KEY_ID;
  let key: Buffer;
  let dataKey: string | undefined;
  if (keyId) {
    const { client, GenerateDataKeyCommand } = await kms();
    const generated = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: { organizationId } }));
    if (!generated.Plaintext || !generated.CiphertextBlob) throw new Error('KMS returned no data key');
    key = Buffer.from(generated.Plaintext);
    dataKey = Buffer.from(generated.CiphertextBlob).toString('base64');
  } else {
    key = await standingInFor({ action: 'kms:GenerateDataKey', resourceVariable: 'WEBHOOK_KMS_KEY_ID' }, localKey);
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(organizationId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  if (dataKey) key.fill(0);
  return {
    by: keyId ? 'kms' : 'local',
    ...(dataKey ? { dataKey } : {}),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

export async function open(sealed: Sealed, organizationId: string): Promise<string> {
  let key: Buffer;
  if (sealed.by === 'kms') {
    const { client, DecryptCommand } = await kms();
    const decrypted = await client.send(
      new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.dataKey ?? '', 'base64'), EncryptionContext: { organizationId } }),
    );
    if (!decrypted.Plaintext) throw new Error('KMS returned no plaintext');
    key = Buffer.from(decrypted.Plaintext);
  } else {
    key = await standingInFor({ action: 'kms:Decrypt', resourceVariable: 'WEBHOOK_KMS_KEY_ID' }, localKey);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(organizationId, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  const plaintext = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  if (sealed.by === 'kms') key.fill(0);
  return plaintext;
}
